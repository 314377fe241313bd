// The input parsed every way into the differential test's messages (proto2
// and proto3, generated and dynamic; flat, in chunks, and over a
// CodedInputStream) by whichever libprotobuf.so.32 is loaded. Under
// libFuzzer it looks for crashes and sanitizer reports; the replay build
// prints one line per input: its name, then for each message (Packed2,
// Packed3, then their dynamic twins) and each way (flat, chunks of 1, 7,
// 16, 17, CodedInputStream) 'o' or 'x' for success or failure and the
// FNV-1a hash of what the parse left in the message (a failed one too:
// protobuf keeps what it parsed). Running the replay under out/stock's and
// out/accel's library and comparing the outputs compares the two libraries
// on the corpus: two libprotobufs, with the same symbols, cannot share a
// process.

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <google/protobuf/wire_format.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "corpus2.pb.h"
#include "corpus3.pb.h"

namespace {

namespace pb = ::google::protobuf;

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3;
  return h;
}

void Append(bool ok, const pb::Message& message, std::string* line) {
  char text[24];
  std::snprintf(text, sizeof(text), " %c%016llx", ok ? 'o' : 'x',
                static_cast<unsigned long long>(Fnv1a(message.SerializePartialAsString())));
  *line += text;
}

void ParseEveryWay(const pb::Message& prototype, const std::string& wire, std::string* line) {
  std::unique_ptr<pb::Message> message(prototype.New());
  Append(message->ParseFromString(wire), *message, line);
  for (int chunk : {1, 7, 16, 17}) {
    message.reset(prototype.New());
    pb::io::ArrayInputStream stream(wire.data(), static_cast<int>(wire.size()), chunk);
    Append(message->ParseFromZeroCopyStream(&stream), *message, line);
  }
  message.reset(prototype.New());
  pb::io::ArrayInputStream stream(wire.data(), static_cast<int>(wire.size()));
  pb::io::CodedInputStream input(&stream);
  Append(pb::internal::WireFormat::ParseAndMergePartial(&input, message.get()), *message, line);
}

#ifdef PROTOACCEL_FUZZ_PRINT
std::string replaying = "-";  // the input's name, from replay_main.cc
#endif

}  // namespace

#ifdef PROTOACCEL_FUZZ_PRINT
extern "C" void ProtoaccelFuzzReplaying(const char* name) { replaying = name; }
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static pb::DynamicMessageFactory* factory = [] {
    pb::SetLogHandler(nullptr);  // both libraries log bad UTF-8
    return new pb::DynamicMessageFactory;
  }();
  const std::string wire(reinterpret_cast<const char*>(data), size);
  std::string line;
  ParseEveryWay(protoaccel::diff::Packed2::default_instance(), wire, &line);
  ParseEveryWay(protoaccel::diff::Packed3::default_instance(), wire, &line);
  ParseEveryWay(*factory->GetPrototype(protoaccel::diff::Packed2::descriptor()), wire, &line);
  ParseEveryWay(*factory->GetPrototype(protoaccel::diff::Packed3::descriptor()), wire, &line);
#ifdef PROTOACCEL_FUZZ_PRINT
  std::printf("%s%s\n", replaying.c_str(), line.c_str());
#endif
  return 0;
}
