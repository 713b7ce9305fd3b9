// Randomness from the kernel's CSPRNG (getrandom): for handles, session ids and random seeds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace arrayhub {

// Fills `out` with unpredictable bytes: the kernel's, each handed out once (small requests from
// a per-thread buffer of them, see entropy.cc). Throws std::runtime_error only if the kernel
// refuses, which no supported kernel does; running on with guessable handles would be worse.
void FillWithEntropy(std::span<std::byte> out);

// A fresh 64-bit seed for a random-array request that names none.
uint64_t RandomSeed();

}  // namespace arrayhub
