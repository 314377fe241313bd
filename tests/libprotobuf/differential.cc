// Parses a corpus made from a fixed seed with whichever libprotobuf.so.32
// the loader picks, and prints one line per case: for each way of parsing,
// "x" for a failure or a hash of the message re-serialized (values and
// unknown fields). Run under out/stock and out/accel, the outputs must be
// identical: that is "the same results as stock".
//
// Usage: differential [--cases N] [--seed S] [--first I]

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "corpus2.pb.h"
#include "corpus3.pb.h"

namespace {

namespace pb = ::google::protobuf;

// ---------------------------------------------------------------------------
// The corpus

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void AppendTag(int field, WireType type, std::string* out) {
  AppendVarint((static_cast<uint64_t>(field) << 3) | type, out);
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  std::string Message(int depth) {
    std::string out;
    const int fields = 1 + Below(depth == 0 ? 6 : 3);
    for (int i = 0; i < fields; ++i) Field(depth, &out);
    if (Below(100) == 0 && !out.empty()) {
      out[Below(out.size())] = static_cast<char>(rng_());  // a stray byte
    }
    if (Below(100) == 0 && !out.empty()) out.resize(Below(out.size()));
    return out;
  }

 private:
  uint64_t Below(uint64_t n) { return rng_() % n; }

  // A varint value of some shape that matters to a decoder.
  uint64_t Value(int shape) {
    switch (shape) {
      case 0: return Below(128);
      case 1: return Below(16384);
      case 2: return static_cast<uint32_t>(rng_());
      case 3: return rng_() >> Below(64);
      case 4: return static_cast<uint64_t>(-1 - static_cast<int64_t>(Below(1000)));
      case 5: return (uint64_t{1} << 32) + Below(8);
      case 6: {
        static const uint64_t kEnumish[] = {0, 1, 5, 7, 100000,
                                            static_cast<uint64_t>(-3),
                                            (uint64_t{1} << 32) + 1,
                                            ~uint64_t{0}, 2};
        return kEnumish[Below(9)];
      }
      default: return Below(2);
    }
  }

  // A varint as protobuf writes it, or now and then padded with 0x80 bytes
  // (valid, not minimal), or with garbage in bits 1-6 of a 10th byte.
  void Varint(uint64_t v, std::string* out) {
    const int r = static_cast<int>(Below(200));
    if (r == 0) {
      const size_t start = out->size();
      AppendVarint(v, out);
      const size_t length = out->size() - start;
      if (length < 10) {
        (*out)[out->size() - 1] |= static_cast<char>(0x80);
        for (size_t i = length + 1; i < 10 && Below(2); ++i) out->push_back('\x80');
        out->push_back('\0');
      }
    } else if (r == 1) {
      *out += std::string(9, '\xff');
      out->push_back(static_cast<char>(Below(128)));
    } else {
      AppendVarint(v, out);
    }
  }

  size_t Count() {
    const int r = static_cast<int>(Below(1000));
    if (r < 700) return Below(21);
    if (r < 900) return 21 + Below(300);
    if (r < 995) return 300 + Below(5000);
    return 5000 + Below(95001);
  }

  std::string PackedPayload() {
    std::string payload;
    const size_t n = Count();
    const int shape = static_cast<int>(Below(8));
    const bool mixed = Below(4) == 0;
    for (size_t i = 0; i < n; ++i) {
      Varint(Value(mixed ? static_cast<int>(Below(8)) : shape), &payload);
    }
    switch (Below(40)) {
      case 0:  // an 11-byte varint
        payload.insert(Below(payload.size() + 1), std::string(10, '\x81') + '\x01');
        break;
      case 1:  // cut inside a varint: it runs on into what follows
        if (!payload.empty()) payload.resize(Below(payload.size()));
        if (!payload.empty()) payload.back() |= static_cast<char>(0x80);
        break;
      case 2:  // a varint that never ends
        payload += std::string(Below(12), '\xff');
        break;
      case 3:  // a run of 40 or more continuation bytes, inside or last
        payload.insert(Below(payload.size() + 1), std::string(40 + Below(41), '\x80'));
        break;
      case 4: {  // a terminator-poor tail: 0 to 3 ends in 40 to 100 bytes
        std::string tail(40 + Below(61), '\x80');
        for (uint64_t i = Below(4); i > 0; --i) tail[Below(tail.size())] = '\x01';
        payload += tail;
        break;
      }
      case 5:  // one- and two-byte varints, then 40 continuation bytes
        payload = std::string(Below(130), '\x01');
        for (uint64_t i = Below(12); i > 0; --i) payload += "\x81\x01";
        payload += std::string(40, '\x80');
        break;
      default:
        break;
    }
    return payload;
  }

  void LengthDelimited(int field, const std::string& payload, std::string* out) {
    AppendTag(field, kLengthDelimited, out);
    uint64_t length = payload.size();
    switch (Below(60)) {
      case 0: length += 1 + Below(40); break;           // past the end
      case 1: length = length > 0 ? Below(length) : 0; break;  // too short
      default: break;
    }
    AppendVarint(length, out);
    *out += payload;
  }

  void Field(int depth, std::string* out) {
    static const int kVarintFields[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13,
                                        100, 101, 102, 103, 104, 105, 106, 107};
    const int r = static_cast<int>(Below(100));
    if (r < 70) {
      const int field = kVarintFields[Below(sizeof(kVarintFields) / sizeof(int))];
      if (Below(6) == 0) {  // unpacked values of a packable field
        for (int i = 1 + Below(4); i > 0; --i) {
          AppendTag(field, kVarint, out);
          Varint(Value(static_cast<int>(Below(8))), out);
        }
      } else {
        LengthDelimited(field, PackedPayload(), out);
      }
    } else if (r < 76) {
      std::string payload(4 * Below(20), '\0');
      for (auto& c : payload) c = static_cast<char>(rng_());
      LengthDelimited(Below(2) ? 9 : 10, payload, out);
    } else if (r < 88) {
      if (depth < 2) LengthDelimited(Below(2) ? 14 : 15, Message(depth + 1), out);
    } else {
      LengthDelimited(Below(2) ? 16 : 17, Text(), out);
    }
  }

  // UTF-8 of every width, sometimes broken.
  std::string Text() {
    static const char* kPieces[] = {"a", "Z", "\xc3\xa9", "\xe2\x82\xac",
                                    "\xf0\x9f\x98\x80", "\xed\xa0\x80",
                                    "\xc0\xaf", "\xf4\x90\x80\x80"};
    std::string text;
    const size_t n = Below(4) == 0 ? Below(2000) : Below(40);
    const int kinds = Below(5) == 0 ? 8 : 5;
    while (text.size() < n) text += kPieces[Below(kinds)];
    return text;
  }

  std::mt19937_64 rng_;
};

// ---------------------------------------------------------------------------
// Parsing

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3;
  return h;
}

std::string Hex(uint64_t h) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// The hash of the parsed message's serialization, then a mark for each
// other way of serializing it that disagrees: ByteSizeLong, an exact array,
// and streams cut into small chunks (each chunk's end is a buffer boundary
// of EpsCopyOutputStream). After a failed parse, "x" and the hash of what
// the parse left in the message: the values appended before the error are
// part of the contract too.
std::string Outcome(bool ok, const pb::Message& message) {
  if (!ok) return "x" + Hex(Fnv1a(message.SerializePartialAsString()));
  const std::string flat = message.SerializeAsString();
  std::string outcome = Hex(Fnv1a(flat));
  if (message.ByteSizeLong() != flat.size()) {
    outcome += "/size" + std::to_string(message.ByteSizeLong());
  }
  std::string array(flat.size(), '\0');
  if (!message.SerializeToArray(&array[0], static_cast<int>(array.size())) ||
      array != flat) {
    outcome += "/array" + Hex(Fnv1a(array));
  }
  for (int chunk : {1, 7, 64}) {
    std::string chunked(flat.size() + 1, '\0');
    pb::io::ArrayOutputStream stream(&chunked[0], static_cast<int>(chunked.size()),
                                     chunk);
    if (!message.SerializeToZeroCopyStream(&stream)) {
      outcome += "/stream" + std::to_string(chunk) + "failed";
      continue;
    }
    chunked.resize(static_cast<size_t>(stream.ByteCount()));
    if (chunked != flat) {
      outcome += "/stream" + std::to_string(chunk) + "=" + Hex(Fnv1a(chunked));
    }
  }
  return outcome;
}

// Flat (0), then through streams cut into chunks of these sizes.
const int kChunkSizes[] = {1, 2, 3, 7, 16, 17, 4096};

// The parser behind Message::ParseFrom* (ParseContext), or the reflection
// parser over a CodedInputStream that WireFormat::ParseAndMergePartial is.
enum class Parser { kParseContext, kCodedStream };

std::string ParseOneWay(Parser parser, const pb::Message& prototype,
                        const std::string& wire, int chunk) {
  std::unique_ptr<pb::Message> message(prototype.New());
  pb::io::ArrayInputStream stream(wire.data(), static_cast<int>(wire.size()),
                                  chunk == 0 ? -1 : chunk);
  bool ok;
  if (parser == Parser::kCodedStream) {
    pb::io::CodedInputStream input(&stream);
    ok = pb::internal::WireFormat::ParseAndMergePartial(&input, message.get());
  } else if (chunk == 0) {
    ok = message->ParseFromString(wire);
  } else {
    ok = message->ParseFromZeroCopyStream(&stream);
  }
  return Outcome(ok, *message);
}

// "kind=outcome" if every way agrees, else every outcome.
std::string ParseAllWays(const char* kind, Parser parser,
                         const pb::Message& prototype,
                         const std::string& wire) {
  std::vector<std::string> outcomes;
  outcomes.push_back(ParseOneWay(parser, prototype, wire, 0));
  for (int chunk : kChunkSizes) {
    outcomes.push_back(ParseOneWay(parser, prototype, wire, chunk));
  }
  std::string line = std::string(" ") + kind + "=";
  bool same = true;
  for (const auto& o : outcomes) same = same && o == outcomes[0];
  if (same) return line + outcomes[0];
  for (size_t i = 0; i < outcomes.size(); ++i) line += (i ? "," : "") + outcomes[i];
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  long cases = 100000, first = 0;
  unsigned long long seed = 20261130;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--cases")) cases = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--first")) first = std::atol(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--cases N] [--seed S] [--first I]\n", argv[0]);
      return 2;
    }
  }
  // Both libraries log invalid UTF-8; only the outcomes are compared.
  pb::SetLogHandler(nullptr);
  pb::DynamicMessageFactory factory;
  const pb::Message* dynamic2 =
      factory.GetPrototype(protoaccel::diff::Packed2::descriptor());
  const pb::Message* dynamic3 =
      factory.GetPrototype(protoaccel::diff::Packed3::descriptor());
  const pb::Message& generated2 = protoaccel::diff::Packed2::default_instance();
  const pb::Message& generated3 = protoaccel::diff::Packed3::default_instance();

  for (long i = 0; i < first + cases; ++i) {
    Generator generator(seed * 1000003 + i);
    const std::string wire = generator.Message(0);
    if (i < first) continue;
    std::string line = std::to_string(i) + " " + std::to_string(wire.size());
    const Parser context = Parser::kParseContext;
    line += ParseAllWays("gen2", context, generated2, wire);
    line += ParseAllWays("gen3", context, generated3, wire);
    line += ParseAllWays("dyn2", context, *dynamic2, wire);
    line += ParseAllWays("dyn3", context, *dynamic3, wire);
    line += ParseAllWays("cis2", Parser::kCodedStream, *dynamic2, wire);
    line += ParseAllWays("cis3", Parser::kCodedStream, *dynamic3, wire);
    std::puts(line.c_str());
  }
  return 0;
}
