// Counts the operator new calls of a program (libprotobuf's included), and
// the bytes they ask for, while `counting` is set. Include in exactly one
// file of a program: it replaces the global operators.

#ifndef PROTOACCEL_TESTS_LIBPROTOBUF_ALLOCATION_COUNTER_H_
#define PROTOACCEL_TESTS_LIBPROTOBUF_ALLOCATION_COUNTER_H_

#include <cstdlib>
#include <new>

namespace allocation_counter {
inline bool counting = false;
inline long allocations = 0;
inline long allocated_bytes = 0;
}  // namespace allocation_counter

void* operator new(size_t size) {
  if (allocation_counter::counting) {
    ++allocation_counter::allocations;
    allocation_counter::allocated_bytes += static_cast<long>(size);
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

#endif  // PROTOACCEL_TESTS_LIBPROTOBUF_ALLOCATION_COUNTER_H_
