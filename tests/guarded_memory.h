// Memory that faults where the API's promise ends: inputs whose last byte
// is followed by an inaccessible page, and outputs of exactly the promised
// room before one. For the kernel tests and the fuzzers; no gtest here.

#ifndef PROTOACCEL_TESTS_GUARDED_MEMORY_H_
#define PROTOACCEL_TESTS_GUARDED_MEMORY_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#define PROTOACCEL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROTOACCEL_TEST_ASAN 1
#endif
#endif
#ifndef PROTOACCEL_TEST_ASAN
#define PROTOACCEL_TEST_ASAN 0
#endif

namespace protoaccel {
namespace testing {

// A copy of some bytes whose last byte is followed by an inaccessible page,
// so that a kernel reading past the end it was given faults.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(const void* data, size_t size) : size_(size) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t data_pages = (size + page - 1) / page;
    mapping_size_ = (data_pages + 1) * page;
    mapping_ = static_cast<char*>(mmap(nullptr, mapping_size_,
                                       PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (mapping_ == MAP_FAILED) std::abort();
    char* guard = mapping_ + data_pages * page;
    if (mprotect(guard, page, PROT_NONE) != 0) std::abort();
    data_ = guard - size;
    if (size > 0) std::memcpy(data_, data, size);
  }
  explicit GuardedBuffer(const std::string& s) : GuardedBuffer(s.data(), s.size()) {}
  ~GuardedBuffer() { munmap(mapping_, mapping_size_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  const char* data() const { return data_; }
  const char* end() const { return data_ + size_; }
  size_t size() const { return size_; }

 private:
  char* mapping_;
  size_t mapping_size_;
  char* data_;
  size_t size_;
};

// Memory whose end is followed by an inaccessible page, reused between
// checks (an mmap per check would dominate the run time). Under
// AddressSanitizer each EndingAt() is instead a heap block of exactly that
// size, whose redzone ASan checks, so that the sanitized run also reports
// where an overrun came from.
class GuardedArena {
 public:
  GuardedArena() = default;
  ~GuardedArena() { Release(); }
  GuardedArena(const GuardedArena&) = delete;
  GuardedArena& operator=(const GuardedArena&) = delete;

  // The start of `size` writable bytes, valid until the next call, that end
  // where the guard page (or the heap block) ends.
  char* EndingAt(size_t size) {
#if PROTOACCEL_TEST_ASAN
    heap_.reset(new char[size > 0 ? size : 1]);
    return heap_.get() + (size > 0 ? 0 : 1);
#else
    if (size > capacity_) Grow(size);
    return guard_ - size;
#endif
  }

 private:
  void Grow(size_t size) {
    Release();
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    capacity_ = (size + 4096 + page - 1) / page * page;
    mapping_size_ = capacity_ + page;
    mapping_ = static_cast<char*>(mmap(nullptr, mapping_size_,
                                       PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (mapping_ == MAP_FAILED) std::abort();
    guard_ = mapping_ + capacity_;
    if (mprotect(guard_, page, PROT_NONE) != 0) std::abort();
  }
  void Release() {
    if (mapping_ != nullptr) munmap(mapping_, mapping_size_);
    mapping_ = nullptr;
    capacity_ = 0;
  }

  char* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  char* guard_ = nullptr;
  size_t capacity_ = 0;
  std::unique_ptr<char[]> heap_;
};

// Where the kernels' outputs go in the tests: exactly the room the API
// promises, then the guard.
inline GuardedArena& OutputArena() {
  static GuardedArena arena;
  return arena;
}

}  // namespace testing
}  // namespace protoaccel

#endif  // PROTOACCEL_TESTS_GUARDED_MEMORY_H_
