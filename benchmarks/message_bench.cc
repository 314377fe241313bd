// Message-level benchmarks of libprotobuf, the program of the A/B report
// (ci/ab.sh, benchmarks/ab.py). It is built once against the system's
// protobuf headers and run against each library through LD_LIBRARY_PATH;
// the JSON context names the libprotobuf.so the loader mapped.
//
// Names are family/operation/.../N, so that --benchmark_filter selects:
//   packed/{parse,serialize}/TYPE/VALUES/N  one packed field of Packed3 with
//       N values; TYPE uint32 uint64 int32 int64 sint32 sint64 bool enum,
//       fixed32 fixed64 (the floor); VALUES lt128 (< 128), lt16384,
//       rand (uniform over the type's 32 or 64 bits; bool: 0 or 1),
//       neg (-1000..-1; signed types only)
//   numberbatch/{parse,serialize}/N     NumberBatch, N random uint32 values
//   uidlist/{parse,serialize}/N         UidList, N random uint64 values
//   extension/{parse,serialize}/TYPE/rand/N  one packed extension (uint32,
//       uint64) of Extended with N random values
//   {string,bytes}/{parse,serialize}/KIND/LENGTH  one field of LENGTH bytes;
//       KIND ascii, 2byte (U+0080..U+07FF), mixed (1- to 4-byte characters)
//   realistic/{parse,serialize}/NAME    a batch of messages like the ones
//       users send (ab_messages.proto): record (a dozen scalars and short
//       strings), order (repeated sub-messages), labels (a map<string,
//       string>), request (an RPC request); every message once per op
//   dataset/{parse,serialize}/NAME      Google's benchmark datasets from the
//       protobuf source (PROTOACCEL_DATASETS_DIR), every payload once per op
//
// Parse cases parse into a fresh message each time, as a server does;
// serialize cases write into a reused std::string. Counters per op:
// values, wire_bytes, allocs/op and alloc_bytes/op (operator new calls and
// the bytes they asked for, libprotobuf's included).

#include <benchmark/benchmark.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <link.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ab_extensions.pb.h"
#include "ab_messages.pb.h"
#include "allocation_counter.h"
#include "counted_benchmark.h"
#include "corpus3.pb.h"

#ifndef PROTOACCEL_DATASETS_DIR
#define PROTOACCEL_DATASETS_DIR ""
#endif

namespace {

using protoaccel::ab::DatasetFile;
using protoaccel::ab::Extended;
using protoaccel::ab::Labels;
using protoaccel::ab::NumberBatch;
using protoaccel::ab::Order;
using protoaccel::ab::SearchRequest;
using protoaccel::ab::Text;
using protoaccel::ab::UidList;
using protoaccel::ab::UserRecord;
using protoaccel::diff::Packed3;

// The wire bytes of the case being measured. google-benchmark calls a case
// several times while it finds the iteration count; the last case's input
// is kept so that ten million values are made once, not each time.
struct Input {
  std::string key;
  std::string wire;
  int64_t values = 0;
};

Input& Cached(const std::string& key, const std::function<void(Input&)>& make) {
  static Input input;
  if (input.key != key) {
    input = Input();
    make(input);
    input.key = key;
  }
  return input;
}

struct Counts {
  long allocations = 0;
  long bytes = 0;
};

// Runs op() with the allocation counter on and adds what it allocated.
template <typename Op>
inline void Counted(Counts& counts, Op&& op) {
  using namespace allocation_counter;
  const long allocations_before = allocations;
  const long bytes_before = allocated_bytes;
  counting = true;
  op();
  counting = false;
  counts.allocations += allocations - allocations_before;
  counts.bytes += allocated_bytes - bytes_before;
}

void SetCounters(benchmark::State& state, const Counts& counts, int64_t values,
                 size_t wire_bytes) {
  using benchmark::Counter;
  state.counters["values"] = Counter(static_cast<double>(values));
  state.counters["wire_bytes"] = Counter(static_cast<double>(wire_bytes));
  state.counters["allocs/op"] =
      Counter(static_cast<double>(counts.allocations), Counter::kAvgIterations);
  state.counters["alloc_bytes/op"] =
      Counter(static_cast<double>(counts.bytes), Counter::kAvgIterations);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(wire_bytes));
}

template <typename Message>
void Parse(benchmark::State& state, const Input& input) {
  Counts counts;
  for (auto _ : state) {
    Message fresh;
    Counted(counts, [&] {
      benchmark::DoNotOptimize(fresh.ParseFromString(input.wire));
    });
  }
  SetCounters(state, counts, input.values, input.wire.size());
}

template <typename Message>
void Serialize(benchmark::State& state, const Input& input) {
  Message message;
  if (!message.ParseFromString(input.wire)) {
    state.SkipWithError("the case's own wire bytes do not parse");
    return;
  }
  std::string out;
  message.SerializeToString(&out);  // out keeps its capacity from here on
  Counts counts;
  for (auto _ : state) {
    Counted(counts, [&] { benchmark::DoNotOptimize(message.SerializeToString(&out)); });
    benchmark::ClobberMemory();
  }
  if (out != input.wire) state.SkipWithError("serialized bytes differ from the input");
  SetCounters(state, counts, input.values, input.wire.size());
}

template <typename Message>
void Run(benchmark::State& state, bool parse, const Input& input) {
  if (parse) {
    Parse<Message>(state, input);
  } else {
    Serialize<Message>(state, input);
  }
}

// ByteSizeLong alone: the size pass of every serialization (the patched
// library's *Size(RepeatedField) for packed varint fields).
void PackedByteSize(benchmark::State& state, std::string type, std::string values);

// ---------------------------------------------------------------- packed --

uint64_t Draw(std::mt19937_64& rng, const std::string& values, int bits) {
  if (values == "lt128") return rng() % 128;
  if (values == "lt16384") return rng() % 16384;
  if (values == "neg") return static_cast<uint64_t>(-1 - static_cast<int64_t>(rng() % 1000));
  return bits == 32 ? static_cast<uint32_t>(rng()) : rng();  // rand
}

void FillPacked(Packed3& m, const std::string& type, const std::string& values,
                int64_t n, std::mt19937_64& rng) {
  for (int64_t i = 0; i < n; ++i) {
    const bool wide = type == "uint64" || type == "int64" || type == "sint64" ||
                      type == "fixed64";
    const uint64_t v = Draw(rng, values, wide ? 64 : 32);
    const auto low = static_cast<uint32_t>(v);
    if (type == "uint32") m.add_u32(low);
    if (type == "uint64") m.add_u64(v);
    if (type == "int32") m.add_i32(static_cast<int32_t>(low));
    if (type == "int64") m.add_i64(static_cast<int64_t>(v));
    if (type == "sint32") m.add_s32(static_cast<int32_t>(low));
    if (type == "sint64") m.add_s64(static_cast<int64_t>(v));
    if (type == "bool") m.add_b((rng() & 1) != 0);
    if (type == "enum") m.mutable_e()->Add(static_cast<int32_t>(low));
    if (type == "fixed32") m.add_f32(low);
    if (type == "fixed64") m.add_f64(v);
  }
}

void Packed(benchmark::State& state, bool parse, std::string type, std::string values) {
  const int64_t n = state.range(0);
  const Input& input = Cached(type + "/" + values + "/" + std::to_string(n), [&](Input& in) {
    std::mt19937_64 rng(static_cast<uint64_t>(n) * 7919 + type.size() * 31 + values.size());
    Packed3 m;
    FillPacked(m, type, values, n, rng);
    in.wire = m.SerializeAsString();
    in.values = n;
  });
  Run<Packed3>(state, parse, input);
}

void PackedByteSize(benchmark::State& state, std::string type, std::string values) {
  const int64_t n = state.range(0);
  std::mt19937_64 rng(static_cast<uint64_t>(n) * 7919 + type.size() * 31 + values.size());
  Packed3 m;
  FillPacked(m, type, values, n, rng);
  const size_t want = m.SerializeAsString().size();
  size_t size = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(size = m.ByteSizeLong());  // computed anew each call
  }
  if (size != want) state.SkipWithError("ByteSizeLong differs from the serialized size");
  state.counters["ns/value"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                  benchmark::Counter::kInvert);
}

// --------------------------------------------------- NumberBatch, UidList --

void NumberBatchCase(benchmark::State& state, bool parse) {
  const int64_t n = state.range(0);
  const Input& input = Cached("numberbatch/" + std::to_string(n), [&](Input& in) {
    std::mt19937_64 rng(static_cast<uint64_t>(n));
    NumberBatch m;
    m.set_sequencenumber(1234567);
    for (int64_t i = 0; i < n; ++i) m.add_values(static_cast<uint32_t>(rng()));
    in.wire = m.SerializeAsString();
    in.values = n;
  });
  Run<NumberBatch>(state, parse, input);
}

void UidListCase(benchmark::State& state, bool parse) {
  const int64_t n = state.range(0);
  const Input& input = Cached("uidlist/" + std::to_string(n), [&](Input& in) {
    std::mt19937_64 rng(static_cast<uint64_t>(n));
    UidList m;
    m.mutable_uids()->Reserve(static_cast<int>(n));
    for (int64_t i = 0; i < n; ++i) m.add_uids(rng());
    in.wire = m.SerializeAsString();
    in.values = n;
  });
  Run<UidList>(state, parse, input);
}

// ------------------------------------------------------------ extensions --

void ExtensionCase(benchmark::State& state, bool parse, std::string type) {
  const int64_t n = state.range(0);
  const Input& input = Cached("extension/" + type + "/" + std::to_string(n), [&](Input& in) {
    std::mt19937_64 rng(static_cast<uint64_t>(n) * 7919 + type.size());
    Extended m;
    for (int64_t i = 0; i < n; ++i) {
      if (type == "uint32") {
        m.AddExtension(protoaccel::ab::packed_uint32, static_cast<uint32_t>(rng()));
      } else {
        m.AddExtension(protoaccel::ab::packed_uint64, rng());
      }
    }
    in.wire = m.SerializeAsString();
    in.values = n;
  });
  Run<Extended>(state, parse, input);
}

// --------------------------------------------------------------- strings --

void AppendUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

// Valid UTF-8 of exactly `length` bytes.
std::string Utf8Text(const std::string& kind, int64_t length) {
  std::mt19937_64 rng(static_cast<uint64_t>(length) * 17 + kind.size());
  std::string out;
  while (static_cast<int64_t>(out.size()) < length) {
    const int64_t room = length - static_cast<int64_t>(out.size());
    uint32_t c = 0x20 + rng() % 0x5F;  // ASCII
    if (kind == "2byte" && room >= 2) c = 0x80 + rng() % (0x800 - 0x80);
    if (kind == "mixed") {
      const int bytes = 1 + static_cast<int>(rng() % 4);
      if (bytes == 2 && room >= 2) c = 0x80 + rng() % (0x800 - 0x80);
      if (bytes == 3 && room >= 3) {
        c = 0x800 + rng() % (0x10000 - 0x800);
        if (c >= 0xD800 && c < 0xE000) c -= 0x800;  // no surrogates
      }
      if (bytes == 4 && room >= 4) c = 0x10000 + rng() % (0x110000 - 0x10000);
    }
    AppendUtf8(out, c);
  }
  return out;
}

void TextCase(benchmark::State& state, bool parse, bool utf8, std::string kind) {
  const int64_t length = state.range(0);
  const Input& input = Cached(std::string(utf8 ? "string/" : "bytes/") + kind + "/" +
                                  std::to_string(length),
                              [&](Input& in) {
                                Text m;
                                const std::string text = Utf8Text(kind, length);
                                if (utf8) {
                                  m.set_text(text);
                                } else {
                                  m.set_data(text);
                                }
                                in.wire = m.SerializeAsString();
                                in.values = length;
                              });
  Run<Text>(state, parse, input);
}

// Every payload parsed into a fresh message, or serialized, once per op.
template <typename Payloads>
void RunBatch(benchmark::State& state, bool parse,
              const google::protobuf::Message& prototype, const Payloads& payloads) {
  size_t wire_bytes = 0;
  for (const std::string& payload : payloads) wire_bytes += payload.size();
  Counts counts;
  if (parse) {
    for (auto _ : state) {
      Counted(counts, [&] {
        for (const std::string& payload : payloads) {
          std::unique_ptr<google::protobuf::Message> fresh(prototype.New());
          benchmark::DoNotOptimize(fresh->ParseFromString(payload));
        }
      });
    }
  } else {
    std::vector<std::unique_ptr<google::protobuf::Message>> messages;
    std::vector<std::string> outs(payloads.size());
    for (const std::string& payload : payloads) {
      messages.emplace_back(prototype.New());
      if (!messages.back()->ParseFromString(payload)) {
        state.SkipWithError("a payload does not parse");
        return;
      }
      messages.back()->SerializeToString(&outs[messages.size() - 1]);
    }
    for (auto _ : state) {
      Counted(counts, [&] {
        for (size_t i = 0; i < messages.size(); ++i) {
          benchmark::DoNotOptimize(messages[i]->SerializeToString(&outs[i]));
        }
      });
      benchmark::ClobberMemory();
    }
  }
  SetCounters(state, counts, static_cast<int64_t>(payloads.size()), wire_bytes);
}

// ------------------------------------------------------------- realistic --

// Words of 3 to 12 lowercase letters; one name in eight is not ASCII, as
// user-entered text sometimes is.
std::string Word(std::mt19937_64& rng, int min = 3, int max = 12) {
  std::string out;
  const int length = min + static_cast<int>(rng() % (max - min + 1));
  for (int i = 0; i < length; ++i) out.push_back(static_cast<char>('a' + rng() % 26));
  return out;
}
std::string PersonName(std::mt19937_64& rng) {
  static const char* const kNonAscii[] = {"Jos\u00e9", "Zo\u00eb", "\u0141ukasz",
                                          "\u5c71\u7530", "Ren\u00e9e"};
  if (rng() % 8 == 0) return kNonAscii[rng() % 5];
  std::string name = Word(rng, 3, 9);
  name[0] = static_cast<char>(name[0] - 'a' + 'A');
  return name + " " + Word(rng, 4, 10);
}

constexpr int kRealisticBatch = 64;

std::vector<std::string> RealisticPayloads(const std::string& name) {
  std::mt19937_64 rng(name.size() * 104729 + static_cast<uint64_t>(name[0]));
  std::vector<std::string> payloads;
  for (int i = 0; i < kRealisticBatch; ++i) {
    std::string wire;
    if (name == "record") {
      UserRecord m;
      m.set_id(static_cast<int64_t>(1000000 + rng() % 100000000));
      m.set_name(PersonName(rng));
      m.set_email(Word(rng) + "@" + Word(rng, 4, 8) + ".com");
      m.set_age(18 + static_cast<int32_t>(rng() % 70));
      m.set_verified(rng() % 2 == 0);
      m.set_balance(static_cast<double>(rng() % 1000000) / 100);
      m.set_flags(static_cast<uint32_t>(rng() % 16));
      m.set_country(rng() % 2 ? "US" : "DE");
      m.set_created_at(1600000000 + static_cast<int64_t>(rng() % 100000000));
      m.set_updated_at(m.created_at() + static_cast<int64_t>(rng() % 1000000));
      m.set_rating(static_cast<float>(rng() % 50) / 10);
      m.set_locale(rng() % 2 ? "en-US" : "de-DE");
      m.set_utc_offset_minutes(static_cast<int32_t>(rng() % 1440) - 720);
      m.set_status(rng() % 4 ? UserRecord::ACTIVE : UserRecord::SUSPENDED);
      wire = m.SerializeAsString();
    } else if (name == "order") {
      Order m;
      m.set_order_id(rng());
      m.set_customer_id("cus_" + Word(rng, 10, 14));
      const int items = 1 + static_cast<int>(rng() % 8);
      int64_t total = 0;
      for (int k = 0; k < items; ++k) {
        Order::LineItem* item = m.add_items();
        item->set_sku("SKU-" + std::to_string(10000 + rng() % 90000));
        item->set_quantity(1 + static_cast<uint32_t>(rng() % 5));
        item->set_price_micros(static_cast<int64_t>(rng() % 100000000));
        item->set_title(Word(rng) + " " + Word(rng));
        total += item->price_micros() * item->quantity();
      }
      m.set_total_micros(total);
      m.set_currency("USD");
      wire = m.SerializeAsString();
    } else if (name == "labels") {
      Labels m;
      static const char* const kKeys[] = {"app", "env", "team", "region", "version",
                                          "tier", "owner", "release"};
      const int labels = 2 + static_cast<int>(rng() % 7);
      for (int k = 0; k < labels; ++k) (*m.mutable_labels())[kKeys[k]] = Word(rng, 2, 16);
      wire = m.SerializeAsString();
    } else {  // request
      SearchRequest m;
      m.set_query(Word(rng) + " " + Word(rng));
      m.set_page(static_cast<int32_t>(rng() % 10));
      m.set_page_size(rng() % 2 ? 20 : 50);
      m.set_user_agent("grpc-c++/1.51.1");
      m.set_trace_id(std::to_string(rng()));
      m.set_flags(static_cast<uint32_t>(rng() % 4));
      m.set_include_deleted(rng() % 16 == 0);
      wire = m.SerializeAsString();
    }
    payloads.push_back(std::move(wire));
  }
  return payloads;
}

void RealisticCase(benchmark::State& state, bool parse, std::string name) {
  const std::vector<std::string> payloads = RealisticPayloads(name);
  const google::protobuf::Message* prototype = &SearchRequest::default_instance();
  if (name == "record") prototype = &UserRecord::default_instance();
  if (name == "order") prototype = &Order::default_instance();
  if (name == "labels") prototype = &Labels::default_instance();
  RunBatch(state, parse, *prototype, payloads);
}

// -------------------------------------------------------------- datasets --

struct Dataset {
  const char* name;
  const char* file;  // under PROTOACCEL_DATASETS_DIR
};
const Dataset kDatasets[] = {
    {"google_message1_proto2", "google_message1/proto2/dataset.google_message1_proto2.pb"},
    {"google_message1_proto3", "google_message1/proto3/dataset.google_message1_proto3.pb"},
    {"google_message2", "google_message2/dataset.google_message2.pb"},
};

std::string DatasetsDir() {
  const char* env = std::getenv("PROTOACCEL_DATASETS_DIR");
  return env != nullptr && *env != '\0' ? env : PROTOACCEL_DATASETS_DIR;
}

void DatasetCase(benchmark::State& state, bool parse, Dataset dataset) {
  const std::string path = DatasetsDir() + "/" + dataset.file;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    state.SkipWithError(("dataset file missing: " + path +
                         " (third_party/fetch.sh protobuf unpacks it)").c_str());
    return;
  }
  std::stringstream contents;
  contents << file.rdbuf();
  DatasetFile data;
  if (!data.ParseFromString(contents.str()) || data.payload_size() == 0) {
    state.SkipWithError(("not a benchmark dataset: " + path).c_str());
    return;
  }
  const google::protobuf::Descriptor* type =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(
          data.message_name());
  if (type == nullptr) {
    state.SkipWithError(("message " + data.message_name() +
                         " is not compiled in: its .proto was missing at build time")
                            .c_str());
    return;
  }
  RunBatch(state, parse,
           *google::protobuf::MessageFactory::generated_factory()->GetPrototype(type),
           data.payload());
}

// ----------------------------------------------------------- registration --

// The packed cases: each type with the value shapes that apply to it.
struct PackedSeries {
  const char* type;
  std::vector<const char*> values;
};
const std::vector<PackedSeries>& PackedMatrix() {
  static const std::vector<PackedSeries> matrix = {
      {"uint32", {"lt128", "lt16384", "rand"}},
      {"uint64", {"lt128", "lt16384", "rand"}},
      {"int32", {"lt128", "lt16384", "rand", "neg"}},
      {"int64", {"lt128", "lt16384", "rand", "neg"}},
      {"sint32", {"lt128", "lt16384", "rand", "neg"}},
      {"sint64", {"lt128", "lt16384", "rand", "neg"}},
      {"bool", {"rand"}},
      {"enum", {"lt128", "lt16384", "rand", "neg"}},
      {"fixed32", {"rand"}},
      {"fixed64", {"rand"}},
  };
  return matrix;
}

using protoaccel_bench::Register;

void RegisterAll() {
  const std::vector<int64_t> counts = {1,    4,     16,    64,     256,    1024,
                                       8192, 10000, 65536, 100000, 1000000};
  const std::vector<int64_t> batch = {1, 10, 100, 1000, 10000, 100000};
  const std::vector<int64_t> uids = {10, 100, 1000, 10000, 100000, 1000000, 10000000};
  const std::vector<int64_t> lengths = {8, 32, 128, 1024, 65536};
  for (const bool parse : {true, false}) {
    const std::string op = parse ? "parse" : "serialize";
    for (const auto& series : PackedMatrix()) {
      for (const char* values : series.values) {
        Register("packed/" + op + "/" + series.type + "/" + values, Packed, parse,
                 series.type, values)
            ->ArgsProduct({counts});
      }
    }
  }
  // The headline shapes only, at a few sizes: the default run stays short.
  for (const auto& shape : std::vector<std::pair<const char*, const char*>>{
           {"uint32", "lt128"}, {"uint32", "rand"}, {"uint64", "rand"},
           {"int32", "neg"}, {"sint32", "rand"}}) {
    Register(std::string("packed/bytesize/") + shape.first + "/" + shape.second,
             PackedByteSize, shape.first, shape.second)
        ->ArgsProduct({{1, 16, 10000}});
  }
  for (const bool parse : {true, false}) {
    const std::string op = parse ? "parse" : "serialize";
    Register("numberbatch/" + op, NumberBatchCase, parse)
        ->ArgsProduct({batch});
    Register("uidlist/" + op, UidListCase, parse)
        ->ArgsProduct({uids});
    for (const char* type : {"uint32", "uint64"}) {
      Register("extension/" + op + "/" + type + "/rand", ExtensionCase, parse, type)
          ->ArgsProduct({{1, 4, 16, 64, 10000}});
    }
  }
  for (const bool utf8 : {true, false}) {
    for (const bool parse : {true, false}) {
      const std::string prefix =
          std::string(utf8 ? "string/" : "bytes/") + (parse ? "parse/" : "serialize/");
      for (const char* kind : {"ascii", "2byte", "mixed"}) {
        Register(prefix + kind, TextCase, parse, utf8, kind)
            ->ArgsProduct({lengths});
      }
    }
  }
  for (const bool parse : {true, false}) {
    for (const char* name : {"record", "order", "labels", "request"}) {
      Register("realistic/" + std::string(parse ? "parse/" : "serialize/") + name,
               RealisticCase, parse, name);
    }
  }
  for (const bool parse : {true, false}) {
    for (const Dataset& dataset : kDatasets) {
      Register("dataset/" + std::string(parse ? "parse/" : "serialize/") + dataset.name,
               DatasetCase, parse, dataset);
    }
  }
}

// The libprotobuf the dynamic loader mapped: the proof of which library ran.
std::string LoadedLibprotobuf() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const std::string name = info->dlpi_name != nullptr ? info->dlpi_name : "";
        if (name.find("libprotobuf.so") != std::string::npos ||
            name.find("libprotobuf-lite.so") != std::string::npos) {
          auto* out = static_cast<std::string*>(data);
          if (!out->empty()) *out += " ";
          *out += name;
        }
        return 0;
      },
      &found);
  return found.empty() ? "(none: linked statically?)" : found;
}

}  // namespace

int main(int argc, char** argv) {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RegisterAll();
  benchmark::AddCustomContext("libprotobuf", LoadedLibprotobuf());
  benchmark::AddCustomContext("protobuf_headers",
                              google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION));
  benchmark::AddCustomContext("datasets_dir", DatasetsDir());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  google::protobuf::ShutdownProtobufLibrary();
  return 0;
}
