// Peak heap bytes allocated between start and stop (test binary only).
#pragma once

#include <cstddef>

void alloc_counter_start();
std::size_t alloc_counter_stop();  // peak live bytes since start
