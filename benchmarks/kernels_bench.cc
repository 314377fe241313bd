// Kernel microbenchmarks: every family, on every level this CPU runs, by
// value width and size. items_per_second counts values (decode, encode) or
// bytes (count, UTF-8).
//
// The 32-bit decoders run next to MaskedVByte's, decode_uint32/<shape>/
// maskedvbyte/N, when the build was given a checkout of it
// (-DPROTOACCEL_MASKEDVBYTE_DIR). The UTF-8 validators run next to anchors,
// when the build found them (see CMakeLists.txt):
// utf8/<kind>/simdutf/<length> (simdutf::validate_utf8, its best kernel
// here) and utf8/<kind>/simdutf_<kernel>/<length> (its westmere, haswell
// and icelake kernels, those this CPU runs),
// utf8/<kind>/utf8_range/<length> (utf8_range_IsValid), from
// third_party/fetch.sh anchors, and utf8/<kind>/stock/<length> (the system
// libprotobuf's IsStructurallyValidUTF8).

#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "counted_benchmark.h"
#include "dispatch/kernels.h"
#include "protoaccel/protoaccel.h"

#ifdef PROTOACCEL_BENCH_MASKEDVBYTE
#include <varintdecode.h>
#endif
#ifdef PROTOACCEL_BENCH_SIMDUTF
#include <simdutf.h>
#endif
#ifdef PROTOACCEL_BENCH_UTF8_RANGE
#include <utf8_range.h>
#endif
#ifdef PROTOACCEL_BENCH_STOCK
#include <google/protobuf/stubs/common.h>
#endif

namespace protoaccel {
namespace {

using internal::Kernels;

// Wire values of a given shape: "1B", "2B" (minimal varints of that many
// bytes), "u32" (random 32-bit), "u64" (random 64-bit), "neg" (negative
// int32, 10 bytes each), "mix" (1..10 bytes, uniformly), "mix32" (1..5
// bytes, uniformly).
std::vector<uint64_t> Values(const std::string& shape, size_t n) {
  std::mt19937_64 rng(n * 131 + shape.size());
  std::vector<uint64_t> values(n);
  for (auto& v : values) {
    if (shape == "1B") v = rng() & 0x7f;
    if (shape == "2B") v = 0x80 + rng() % (0x4000 - 0x80);
    if (shape == "u32") v = static_cast<uint32_t>(rng());
    if (shape == "u64") v = rng();
    if (shape == "neg") v = static_cast<uint64_t>(-1 - static_cast<int64_t>(rng() % 1000));
    if (shape == "mix") v = rng() >> (7 * (rng() % 10));
    if (shape == "mix32") v = static_cast<uint32_t>(rng()) >> (7 * (rng() % 5));
  }
  return values;
}

std::string Encode(const std::vector<uint64_t>& values) {
  std::string out;
  for (uint64_t v : values) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  return out;
}

template <typename T>
void Decode(benchmark::State& state, internal::DecodeFn<T> decode,
            std::string shape) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::string wire = Encode(Values(shape, n));
  const size_t size = wire.size();
  wire.append(16, '\0');  // protobuf's slop
  std::unique_ptr<T[]> out(new T[n]);
  for (auto _ : state) {
    const DecodeResult r = decode(wire.data(), wire.data() + size,
                                  wire.data() + size + 16, out.get());
    benchmark::DoNotOptimize(r);
    benchmark::ClobberMemory();
  }
  // A decoder timed on input it cannot decode (an anchor's limits) would
  // time nothing worth reporting.
  const DecodeResult r = decode(wire.data(), wire.data() + size, wire.data() + size + 16,
                                out.get());
  if (!r.ok || r.count != n) state.SkipWithError("decoded other than the values encoded");
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["bytes/value"] = static_cast<double>(size) / n;
}

void Count(benchmark::State& state, size_t (*count)(const char*, size_t)) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::string wire = Encode(Values("mix", n));
  for (auto _ : state) {
    benchmark::DoNotOptimize(count(wire.data(), wire.size()));
  }
  state.SetItemsProcessed(state.iterations() * wire.size());
}

// Text of exactly `size` bytes: ASCII, two-byte characters, or a mix of
// one- to four-byte characters.
std::string Text(const std::string& kind, size_t size) {
  static const char* kMixed[] = {"a", "\xc3\xa9", "\xe2\x82\xac",
                                 "\xf0\x9f\x98\x80"};
  std::mt19937_64 rng(size);
  std::string text;
  while (text.size() < size) {
    if (kind == "ascii") text += static_cast<char>('a' + rng() % 26);
    if (kind == "2byte") text += "\xd0\x96";
    if (kind == "mixed") text += kMixed[rng() % 4];
  }
  // Cut to a whole character, then pad with ASCII.
  text.resize(ValidUtf8Prefix(text.data(), size));
  text.resize(size, 'z');
  return text;
}

void Utf8(benchmark::State& state, bool (*validate)(const char*, size_t),
          std::string kind) {
  const std::string text = Text(kind, static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(validate(text.data(), text.size()));
  }
  state.SetItemsProcessed(state.iterations() * text.size());
}

// The other validators, as (name, function) pairs.
std::vector<std::pair<std::string, bool (*)(const char*, size_t)>>
Utf8Anchors() {
  std::vector<std::pair<std::string, bool (*)(const char*, size_t)>> anchors;
#ifdef PROTOACCEL_BENCH_SIMDUTF
  anchors.emplace_back("simdutf", [](const char* p, size_t n) {
    return simdutf::validate_utf8(p, n);
  });
  // Its kernel for each instruction set this CPU runs, to set beside ours
  // level by level: simdutf picks its best one above, AVX-512 (icelake)
  // where the CPU has it, which says nothing of our AVX2 kernel.
  static const simdutf::implementation* const kLevels[] = {
      simdutf::get_available_implementations()["westmere"],
      simdutf::get_available_implementations()["haswell"],
      simdutf::get_available_implementations()["icelake"]};
  static_assert(sizeof(kLevels) / sizeof(kLevels[0]) == 3, "one lambda each");
  bool (*const validate[])(const char*, size_t) = {
      [](const char* p, size_t n) { return kLevels[0]->validate_utf8(p, n); },
      [](const char* p, size_t n) { return kLevels[1]->validate_utf8(p, n); },
      [](const char* p, size_t n) { return kLevels[2]->validate_utf8(p, n); }};
  for (int i = 0; i < 3; ++i) {
    if (kLevels[i] != nullptr && kLevels[i]->supported_by_runtime_system()) {
      anchors.emplace_back("simdutf_" + std::string(kLevels[i]->name()), validate[i]);
    }
  }
#endif
#ifdef PROTOACCEL_BENCH_UTF8_RANGE
  anchors.emplace_back("utf8_range", [](const char* p, size_t n) {
    return utf8_range_IsValid(p, n);
  });
#endif
#ifdef PROTOACCEL_BENCH_STOCK
  anchors.emplace_back("stock", [](const char* p, size_t n) {
    return google::protobuf::internal::IsStructurallyValidUTF8(
        p, static_cast<int>(n));
  });
#endif
  return anchors;
}

// Sizes and encoders take the wire values of `shape` converted to T: for
// int32, "neg" is negative (10 bytes each); for sint32, "u32" is random
// 32-bit values, ZigZag-encoded to 1..5 bytes (mostly 5).
template <typename T>
void SizeValues(benchmark::State& state, internal::SizeFn<T> size,
                std::string shape) {
  const std::vector<uint64_t> wide =
      Values(shape, static_cast<size_t>(state.range(0)));
  const std::vector<T> values(wide.begin(), wide.end());
  for (auto _ : state) {
    benchmark::DoNotOptimize(size(values.data(), values.size()));
  }
  state.SetItemsProcessed(state.iterations() * values.size());
}

template <typename T>
void EncodeValues(benchmark::State& state, internal::EncodeFn<T> encode,
                  std::string shape) {
  const std::vector<uint64_t> wide =
      Values(shape, static_cast<size_t>(state.range(0)));
  const std::vector<T> values(wide.begin(), wide.end());
  std::string out(10 * values.size(), '\0');
  for (auto _ : state) {
    benchmark::DoNotOptimize(encode(values.data(), values.size(), &out[0]));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * values.size());
}

using protoaccel_bench::Register;

// size_<type>/<shape>/<isa>/N and encode_<type>/<shape>/<isa>/N.
template <typename T>
void SizeAndEncode(const std::string& type, const std::string& shape,
                   const std::string& at, internal::SizeFn<T> size,
                   internal::EncodeFn<T> encode,
                   const std::vector<int64_t>& counts) {
  Register("size_" + type + "/" + shape + at, SizeValues<T>, size, shape)
      ->ArgsProduct({counts});
  Register("encode_" + type + "/" + shape + at, EncodeValues<T>, encode, shape)
      ->ArgsProduct({counts});
}

void RegisterAll() {
  const std::vector<int64_t> kCounts = {4, 16, 32, 64, 256, 4096, 65536, 1 << 20};
  const std::vector<int64_t> kLengths = {8, 16, 32, 64, 128, 1024, 65536};
  std::vector<int64_t> kEncodeCounts = kCounts;
  kEncodeCounts.insert(kEncodeCounts.begin(), 1);
  kEncodeCounts.insert(kEncodeCounts.begin() + 2, 8);  // 1, 4, 8, 16, ...
  for (int i = 0; i < kIsaCount; ++i) {
    const Isa isa = static_cast<Isa>(i);
    if (!internal::Runs(isa)) continue;
    const Kernels& k = *internal::KernelsFor(isa);
    const std::string at = std::string("/") + IsaName(isa);
    auto decode = k.varint_decode;
    for (const char* shape : {"1B", "2B", "u32", "mix32", "neg"}) {
      Register("decode_uint32/" + std::string(shape) + at, Decode<uint32_t>,
               decode.low32, shape)
          ->ArgsProduct({kCounts});
    }
    for (const char* shape : {"1B", "u64", "mix"}) {
      Register("decode_uint64/" + std::string(shape) + at, Decode<uint64_t>,
               decode.full64, shape)
          ->ArgsProduct({kCounts});
    }
    Register("decode_sint32/u32" + at, Decode<int32_t>, decode.zigzag32, "u32")
        ->ArgsProduct({kCounts});
    Register("decode_bool/1B" + at, Decode<bool>, decode.boolean, "1B")
        ->ArgsProduct({kCounts});
    Register("count/mix" + at, Count, k.varint_count.count)
        ->ArgsProduct({kCounts});
    for (const char* kind : {"ascii", "2byte", "mixed"}) {
      Register("utf8/" + std::string(kind) + at, Utf8, k.utf8.validate, kind)
          ->ArgsProduct({kLengths});
    }
    // Sizes and encoders from N = 1: their scalar cutoffs are measured here.
    const internal::VarintEncodeKernels& enc = k.varint_encode;
    for (const char* shape : {"1B", "2B", "u32"}) {
      SizeAndEncode("uint32", shape, at, enc.size_uint32, enc.encode_uint32,
                    kEncodeCounts);
    }
    SizeAndEncode("uint64", "u64", at, enc.size_uint64, enc.encode_uint64,
                  kEncodeCounts);
    SizeAndEncode("int32", "neg", at, enc.size_int32, enc.encode_int32,
                  kEncodeCounts);
    SizeAndEncode("sint32", "u32", at, enc.size_sint32, enc.encode_sint32,
                  kEncodeCounts);
  }
#ifdef PROTOACCEL_BENCH_MASKEDVBYTE
  // MaskedVByte decodes 32-bit varints of up to 5 bytes: every shape but
  // "neg" (10 bytes each).
  if (internal::Runs(Isa::kSse4)) {
    internal::DecodeFn<uint32_t> masked_vbyte = [](const char* p, const char* end,
                                                   const char*, uint32_t* out) {
      const size_t count = masked_vbyte_decode_fromcompressedsize(
          reinterpret_cast<const uint8_t*>(p), out, static_cast<size_t>(end - p));
      return DecodeResult{end, count, true};
    };
    for (const char* shape : {"1B", "2B", "u32", "mix32"}) {
      Register("decode_uint32/" + std::string(shape) + "/maskedvbyte", Decode<uint32_t>,
               masked_vbyte, shape)
          ->ArgsProduct({kCounts});
    }
  }
#endif
  // The anchors are called through a function pointer too, as the kernels
  // are through their table (to a wrapper that calls them).
  for (const auto& anchor : Utf8Anchors()) {
    for (const char* kind : {"ascii", "2byte", "mixed"}) {
      Register("utf8/" + std::string(kind) + "/" + anchor.first, Utf8,
               anchor.second, kind)
          ->ArgsProduct({kLengths});
    }
  }
}

}  // namespace
}  // namespace protoaccel

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  protoaccel::RegisterAll();
  benchmark::AddCustomContext("protoaccel_detected",
                              protoaccel::IsaName(protoaccel::DetectedIsa()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
