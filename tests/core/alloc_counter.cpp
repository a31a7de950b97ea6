// Counts heap bytes while a test asks it to, by replacing the global operator
// new/delete of the test binary. Used to check, from the outside, how much
// memory a computation allocates (e.g. tiled attention's O(n·d), not O(n²)).
#include "alloc_counter.hpp"

#include <cstdlib>
#include <new>

namespace {
// Each block carries its size in a header so delete can subtract it.
constexpr std::size_t header = 16;
bool counting = false;
std::size_t live = 0, peak = 0;
}  // namespace

void alloc_counter_start() {
    live = peak = 0;
    counting = true;
}

std::size_t alloc_counter_stop() {
    counting = false;
    return peak;
}

void* operator new(std::size_t n) {
    void* p = std::malloc(n + header);
    if (!p)
        throw std::bad_alloc();
    *static_cast<std::size_t*>(p) = counting ? n : 0;
    if (counting) {
        live += n;
        if (live > peak)
            peak = live;
    }
    return static_cast<char*>(p) + header;
}

void operator delete(void* p) noexcept {
    if (!p)
        return;
    char* base = static_cast<char*>(p) - header;
    const std::size_t n = *reinterpret_cast<std::size_t*>(base);
    if (counting && n <= live)
        live -= n;
    std::free(base);
}

void operator delete(void* p, std::size_t) noexcept { operator delete(p); }
// The nothrow forms (std::stable_sort's temporary buffer) take the same header:
// without them the library's nothrow new and this delete disagree (ASan: a read
// before the block).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return operator new(n);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p, const std::nothrow_t&) noexcept { operator delete(p); }
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { operator delete(p); }
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete[](void* p, std::size_t) noexcept { operator delete(p); }
