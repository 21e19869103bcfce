// runtime/base/random.h — counter-based random inputs: element i of tensor t depends only on (seed, t, i).
//
// Because the value is a pure function of the element's linear (row-major) index, every rank
// can generate exactly the elements it owns, in any order and any tiling, and the result is
// the same as a single-process run: no random stream is shared or split.
#pragma once

#include <cstdint>
#include <string_view>

namespace tcert {

/// The splitmix64 finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014; constants of Vigna's splitmix64.c): a bijective 64-bit mix
/// whose output bits each depend on every input bit.
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Element `linear_index` (row-major, 0-based) of tensor `tensor_id` for `seed`: a value in
/// [-1, 1) with 53 random bits, of the form k·2^-52 − 1. Algorithm: the key
/// k = mix(mix(seed + γ) ^ (tensor_id + 2γ)) selects a splitmix64 stream and the element is
/// that stream's output number linear_index, mix(k + (linear_index + 1)·γ), with
/// γ = 0x9e3779b97f4a7c15 (the golden-ratio increment); its top 53 bits u give 2·u·2^-53 − 1.
constexpr double random_element(std::uint64_t seed, std::uint64_t tensor_id, std::uint64_t linear_index) {
  constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ULL;
  std::uint64_t key = splitmix64_mix(splitmix64_mix(seed + kGamma) ^ (tensor_id + 2 * kGamma));
  std::uint64_t bits = splitmix64_mix(key + (linear_index + 1) * kGamma);
  return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;
}

/// 64-bit FNV-1a hash of a tensor's name, its id for random_element (so inputs do not depend
/// on declaration order). FNV offset basis 14695981039346656037, prime 1099511628211.
constexpr std::uint64_t tensor_id_of(std::string_view name) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

}  // namespace tcert
