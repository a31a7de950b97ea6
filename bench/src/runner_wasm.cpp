// The wasm side of the benchmark: nothing but the C functions of workloads.hpp,
// exported to JS (see CMakeLists.txt); bench/lib/peers.mjs wraps them.
#include "workloads.hpp"

int main() { return 0; }
