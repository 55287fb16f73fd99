// SPDX-License-Identifier: BSD-3-Clause
// A program whose own operator new and delete are instrumented: Strata allocates
// while it records, and must neither recurse nor dead-lock on such calls.
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>
void* operator new(std::size_t n) { void* p = std::malloc(n ? n : 1); if (!p) throw std::bad_alloc(); return p; }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
__attribute__((noinline)) int work(int n) { std::vector<int> v(n, 1); int s = 0; for (int x : v) s += x; return s; }
int main() { int s = 0; for (int i = 0; i < 5; ++i) s += work(100); std::printf("%d\n", s); return s == 500 ? 0 : 1; }
