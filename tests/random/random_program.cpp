// tests/random/random_program.cpp — random_program(): see the header.
#include "random/random_program.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tcec::testing {

namespace {

struct Tensor {
  std::string name;
  std::vector<int> dims;  // range of each dimension
  bool result = false;    // written by a statement
  bool read = false;      // read by a later statement
};

class Generator {
 public:
  Generator(std::uint64_t seed, const RandomLimits& limits) : rng_(seed), limits_(limits) {}

  RandomProgram run() {
    const int ranges = uniform(1, 3);
    for (int r = 0; r < ranges; ++r) {
      const double top = std::log(static_cast<double>(limits_.max_extent));
      extents_.push_back(std::max<std::int64_t>(1, std::llround(std::exp(real(0, top)))));
    }
    const int statements = uniform(1, 5);
    for (int s = 0; s < statements; ++s) {
      if (s > 0 && chance(0.15))
        copy();
      else
        contraction();
    }
    processors_ = uniform(1, static_cast<int>(limits_.max_processors));
    return {text(), processors_};
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  bool chance(double p) { return real(0, 1) < p; }
  template <class T>
  T& pick(std::vector<T>& v) {
    return v[static_cast<std::size_t>(uniform(0, static_cast<int>(v.size()) - 1))];
  }

  /// Index variables per range.
  static constexpr std::size_t kVariables = 5;
  /// Index variable `k` (0 .. kVariables-1) of range r: "a0", "b2", ...
  static std::string variable(int r, int k) { return fmt::format("{}{}", static_cast<char>('a' + r), k); }

  /// A fresh variable of range r not in `used` (empty when all are used).
  std::string fresh(int r, std::set<std::string>& used) {
    std::vector<std::string> free;
    for (int k = 0; k < static_cast<int>(kVariables); ++k)
      if (!used.count(variable(r, k))) free.push_back(variable(r, k));
    if (free.empty()) return "";
    std::string v = pick(free);
    used.insert(v);
    return v;
  }

  /// `count` fresh variables of random ranges (fewer when every range's are used).
  std::vector<std::string> fresh_list(int count, std::set<std::string>& used) {
    std::vector<std::string> out;
    while (static_cast<int>(out.size()) < count && used.size() < kVariables * extents_.size()) {
      const std::string v = fresh(uniform(0, static_cast<int>(extents_.size()) - 1), used);
      if (!v.empty()) out.push_back(v);
    }
    return out;
  }

  static int range_of(const std::string& v) { return v[0] - 'a'; }

  /// A new tensor over the ranges of `vars` (in that order).
  int new_tensor(const std::string& prefix, const std::vector<std::string>& vars, bool result) {
    tensors_.push_back({fmt::format("{}{}", prefix, tensors_.size()), dims_of(vars), result, false});
    return static_cast<int>(tensors_.size()) - 1;
  }

  /// Binds a distinct fresh variable to each dimension of tensor t (empty when out of variables).
  std::vector<std::string> bind(int t, std::set<std::string>& used) {
    std::vector<std::string> out;
    for (int r : tensors_[static_cast<std::size_t>(t)].dims) {
      const std::string v = fresh(r, used);
      if (v.empty()) return {};
      out.push_back(v);
    }
    return out;
  }

  std::string ref(int t, const std::vector<std::string>& vars) const {
    return fmt::format("{}[{}]", tensors_[static_cast<std::size_t>(t)].name, fmt::join(vars, ","));
  }

  std::string coefficient() {
    static const char* kCoefficients[] = {"", "", "-1 * ", "0.5 * ", "2 * ", "1/3 * "};
    return kCoefficients[uniform(0, 5)];
  }

  std::string op(bool fresh_result) { return fresh_result ? (chance(0.8) ? "=" : "+=") : (chance(0.7) ? "+=" : "-="); }

  void shuffle(std::vector<std::string>& v) { std::shuffle(v.begin(), v.end(), rng_); }

  std::vector<int> results() const {
    std::vector<int> out;
    for (std::size_t t = 0; t < tensors_.size(); ++t)
      if (tensors_[t].result && tensors_[t].dims.size() <= 4) out.push_back(static_cast<int>(t));
    return out;
  }

  void contraction() {
    std::set<std::string> used;
    std::vector<std::string> I, J, K, a_vars, c_vars;
    int a = -1, c = -1;
    std::vector<int> earlier = results();
    if (!earlier.empty() && chance(0.5)) {  // A is an earlier result: its dims split into I and K
      a = pick(earlier);
      a_vars = bind(a, used);
      if (a_vars.empty()) a = -1;
    }
    if (a >= 0) {
      for (const std::string& v : a_vars) (chance(0.5) ? I : K).push_back(v);
      const int room = 5 - static_cast<int>(a_vars.size());
      J = fresh_list(uniform(std::max(0, 2 - static_cast<int>(a_vars.size())), std::max(0, std::min(2, room))), used);
    } else {
      const int n = uniform(2, 5);
      std::vector<std::string> all = fresh_list(n, used);
      for (const std::string& v : all) {
        const int g = uniform(0, 2);
        (g == 0 ? I : g == 1 ? J : K).push_back(v);
      }
      a_vars = I;
      a_vars.insert(a_vars.end(), K.begin(), K.end());
      shuffle(a_vars);
      a = new_tensor("A", a_vars, false);
    }
    std::vector<std::string> b_vars = J;
    b_vars.insert(b_vars.end(), K.begin(), K.end());
    shuffle(b_vars);
    const int b = new_tensor("B", b_vars, false);
    c_vars = I;
    c_vars.insert(c_vars.end(), J.begin(), J.end());
    shuffle(c_vars);
    // C: now and then an earlier result of the same ranges (in C's order), else a new one.
    bool fresh_result = true;
    for (int t : earlier)
      if (t != a && tensors_[static_cast<std::size_t>(t)].dims == dims_of(c_vars) && chance(0.4)) {
        c = t, fresh_result = false;
        break;
      }
    if (c < 0) c = new_tensor("R", c_vars, true);
    tensors_[static_cast<std::size_t>(a)].read = true;
    statements_.push_back(fmt::format("{} {} {}{} * {};", ref(c, c_vars), op(fresh_result), coefficient(),
                                      ref(a, a_vars), ref(b, b_vars)));
  }

  /// The ranges of `vars`, in order.
  static std::vector<int> dims_of(const std::vector<std::string>& vars) {
    std::vector<int> out;
    for (const std::string& v : vars) out.push_back(range_of(v));
    return out;
  }

  /// A permuted copy of an earlier result into a new tensor.
  void copy() {
    std::vector<int> earlier = results();
    if (earlier.empty()) return contraction();
    std::set<std::string> used;
    const int in = pick(earlier);
    std::vector<std::string> in_vars = bind(in, used);
    if (in_vars.empty()) return contraction();
    std::vector<std::string> out_vars = in_vars;
    shuffle(out_vars);
    const int out = new_tensor("R", out_vars, true);
    tensors_[static_cast<std::size_t>(in)].read = true;
    statements_.push_back(fmt::format("{} = {}{};", ref(out, out_vars), coefficient(), ref(in, in_vars)));
  }

  std::string text() {
    std::string out;
    std::vector<std::string> ranges, indices;
    for (std::size_t r = 0; r < extents_.size(); ++r) {
      const char name = static_cast<char>('N' + r);
      ranges.push_back(fmt::format("{} = {}", name, extents_[r]));
      std::vector<std::string> vars;
      for (std::size_t k = 0; k < kVariables; ++k) vars.push_back(variable(static_cast<int>(r), static_cast<int>(k)));
      indices.push_back(fmt::format("index {} : {};", fmt::join(vars, ", "), name));
    }
    out += fmt::format("range {};\n", fmt::join(ranges, ", "));
    for (const std::string& line : indices) out += line + "\n";
    double largest = 1;
    for (const Tensor& t : tensors_) {
      std::vector<std::string> dims;
      double elements = 1;
      for (int r : t.dims) {
        dims.push_back(std::string(1, static_cast<char>('N' + r)));
        elements *= static_cast<double>(extents_[static_cast<std::size_t>(r)]);
      }
      largest = std::max(largest, elements);
      const char* role = !t.result ? "input" : t.read ? "intermediate" : "output";
      out += fmt::format("tensor {}[{}] {};\n", t.name, fmt::join(dims, ","), role);
    }
    for (const std::string& s : statements_) out += s + "\n";
    // Memory from a few elements to twice the largest tensor, log-uniform (bytes).
    const double memory = std::exp(real(std::log(8.0 * 4), std::log(2 * 8.0 * largest + 64)));
    out += fmt::format("machine random {{ processors {}; memory {} B; network 1 GB/s; disk 500 MB/s; }}\n", processors_,
                       static_cast<std::uint64_t>(std::ceil(memory)));
    return out;
  }

  std::mt19937_64 rng_;
  RandomLimits limits_;
  std::vector<std::int64_t> extents_;
  std::vector<Tensor> tensors_;
  std::vector<std::string> statements_;
  int processors_ = 1;
};

}  // namespace

RandomProgram random_program(std::uint64_t seed, const RandomLimits& limits) { return Generator(seed, limits).run(); }

}  // namespace tcec::testing
