// ir/ir.h — tcec's intermediate representation: index ranges, index variables,
// tensors, statements, the machine description, and the macro-index GEMM view
// of a binary contraction (Gao et al. §2, Eq. 2.2).
//
// Reader's map:
//   SourceLocation, Range, Index, Tensor, TensorRef, Statement, MachineDesc, Program
//       plain value types the frontend fills in; ids are positions in Program's vectors.
//   MacroIndexGemm, macro_index_gemm()
//       C(I,J) += A(I,K) * B(J,K) for a two-operand statement.
//   format_*()
//       canonical text forms used by reports and diagnostics.
//
// The IR says *what* to compute; how (plans) lives in costmodel/, never here.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

/// Internal invariant check for the compiler stages (never for user input,
/// which gets diagnostics). Throws tcec::ir::InternalError naming the file,
/// line and the reason, so a broken invariant is a clear failure, not UB.
#define TCEC_ASSERT(cond, why)                                               \
  do {                                                                       \
    if (!(cond)) ::tcec::ir::internal_error(__FILE__, __LINE__, #cond, why); \
  } while (0)

namespace tcec::ir {

/// Raised by TCEC_ASSERT: a compiler bug, not a user error.
struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};
/// Throws InternalError("FILE:LINE: internal error: WHY (COND)"); used by TCEC_ASSERT.
[[noreturn]] void internal_error(const char* file, int line, const char* cond, const char* why);

/// A position in a source file. Both fields are 1-based; the column counts
/// bytes. {0,0} means "no location" (e.g. a command-line override).
struct SourceLocation {
  int line = 0;
  int column = 0;
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

/// Upper bound on a range's extent (2^40), from the language definition.
inline constexpr std::uint64_t kMaxRangeExtent = std::uint64_t{1} << 40;

/// `range O = 10;` — a named extent, 1 <= extent <= kMaxRangeExtent.
struct Range {
  std::string name;
  std::uint64_t extent = 0;
  SourceLocation loc;
  /// `range O = 10 irreps (3, 0, 1, 1);` (with a `symmetry` declaration): the spatial orbitals of
  /// each irrep of the point group, in its order; the range's spin orbitals are alpha then beta
  /// of each (extent = 2·Σ, checked by the frontend). Empty: none given.
  std::vector<std::uint64_t> irreps;
};

/// `index h1 : O;` — an index variable over a range (`range` is an id into Program::ranges).
struct Index {
  std::string name;
  int range = -1;
  SourceLocation loc;
};

/// What a tensor is for. Inputs are read, outputs are written and kept,
/// intermediates are written, read, and may be freed after their last use.
enum class TensorRole { Input, Output, Intermediate };

/// `tensor t[V,V,O,O] input;` — dims are range ids, outermost (slowest) first;
/// storage is row-major (C order) in that order. Rank 0 is a scalar.
/// `distribute A[i,k] over (i, k) grid (2, 2);` — a constrained distribution (Gao et al.
/// §2.3): the tensor lies block-distributed on the ranks' local disks, an input before the
/// program runs, an output after it. Grid dimension g splits tensor dimension dims[g] into
/// grid[g] balanced blocks (the first n mod grid[g] blocks one element longer); the rank at
/// grid coordinates (c_0, c_1, ...) is their row-major number (the last coordinate fastest)
/// and holds the box of its blocks. The frontend guarantees 1..3 distinct dims, and, once a
/// machine is known (frontend::check_distributions), Π grid_for(P) = P and each grid
/// dimension <= the extent it splits.
struct Distribution {
  std::vector<int> dims;           ///< tensor dimensions (positions), one per grid dimension
  std::vector<std::int64_t> grid;  ///< ranks along each grid dimension; empty: grid_for() chooses
  SourceLocation loc;

  /// The process grid on P ranks: `grid` when declared; otherwise P factored into dims.size()
  /// near-equal factors, the smaller first (1 dimension: {P}; 2: {a, P/a} with a the largest
  /// divisor of P <= √P, e.g. 4 -> {2, 2}, 6 -> {2, 3}, 7 -> {1, 7}; 3: {b, ...} with b the
  /// largest divisor <= ∛P, then the 2-dimensional rule for P/b).
  std::vector<std::int64_t> grid_for(std::int64_t processors) const;
};

/// With a `symmetry` declaration a tensor is symmetry-blocked as NWChem's TCE blocks it ("Symmetry
/// blocks" below): its upper_dims() first dims are its upper half (creation indices), the rest
/// the lower one, spin and irrep conserved between them; `irrep` its irrep; its antisymmetric
/// runs are those of antisymmetric_runs(). `dense` turns that off for the tensor.
struct Tensor {
  std::string name;
  std::vector<int> dims;
  TensorRole role = TensorRole::Intermediate;
  SourceLocation loc;
  std::optional<Distribution> distribution;  ///< inputs and outputs only; none: unconstrained
  int upper = -1;                            ///< `upper N`: dims of the upper half; -1: not declared (upper_dims())
  int irrep = 0;                             ///< `irrep N`: 0 (totally symmetric) unless declared
  bool dense = false;                        ///< `dense`: no symmetry blocks
  /// Antisymmetric runs (dim positions) where they are not the TCE's rule: an importer's (an
  /// NWChem P( n ) product is not antisymmetric in the indices P( n ) permutes). nullopt: the rule.
  std::optional<std::vector<std::vector<int>>> antisymmetric;
  /// Dims of the upper half: `upper` when declared, else half the rank, rounded up.
  std::size_t upper_dims() const { return upper >= 0 ? static_cast<std::size_t>(upper) : (dims.size() + 1) / 2; }
};

/// A use of a tensor: `t[p5,p6,h1,h2]`. indices[d] is the index id in dimension d.
struct TensorRef {
  int tensor = -1;
  std::vector<int> indices;
  SourceLocation loc;
};

/// `=` overwrites the result, `+=` adds to it, `-=` subtracts from it.
enum class AssignOp { Assign, Add, Subtract };

/// `result op coefficient * operands[0] [* operands[1]]`. Indices on the right
/// that are not in the result are summed (einsum convention). The frontend
/// guarantees: 1 or 2 operands; no index repeated within one reference; every
/// result index appears on the right; no batch index (in the result and in
/// both operands); with one operand, the same index set on both sides.
struct Statement {
  TensorRef result;
  AssignOp op = AssignOp::Add;
  double coefficient = 1.0;      ///< the numeric factor as written (sign of `-=` not folded in)
  std::string coefficient_text;  ///< as written, e.g. "1/2", "-0.5"; empty when absent
  std::vector<TensorRef> operands;
  SourceLocation loc;
  std::string source_text;  ///< the statement's source line(s), trimmed, for reports
  /// One term of an antisymmetriser (an NWChem P( n )): the terms together are antisymmetric in
  /// the result's runs where one alone is not (symmetry blocks: not checked term by term).
  bool antisymmetrized = false;
};

/// A machine (Gao et al. §2, Table 8). Bandwidths in bytes per second,
/// memory in bytes per processor. All fields are set when the frontend
/// accepts a machine; defaults are the language's defaults.
struct MachineDesc {
  std::string name;
  std::int64_t processors = 0;               ///< P >= 1
  std::uint64_t memory_bytes = 0;            ///< per processor, for all three tiles together
  double network_bytes_per_s = 0;            ///< B_c
  double disk_read_bytes_per_s = 0;          ///< B_d for reads
  double disk_write_bytes_per_s = 0;         ///< B_d for writes
  std::uint64_t element_size_bytes = 8;      ///< bytes per tensor element (double)
  double replication_factor = 1.0;           ///< f_rep: multiplies broadcast traffic
  double reduction_factor = 1.0;             ///< f_red: multiplies all-reduce traffic
  double disk_latency_s = 0;                 ///< seconds per disk request (0: Gao et al.'s model)
  double page_fault_s = 0;                   ///< seconds per page fault of a mapped read (0: not modelled)
  double flops_per_s = 50e9;                 ///< the tile kernel's rate per processor, FLOP/s
  double memory_bytes_per_s = 0;             ///< the kernel's memory stream per processor (0: not modelled)
  double overlap = 1.0;                      ///< share of disk time an I/O thread hides, 0 to 1
  std::int64_t ranks_per_node = 0;           ///< processors per node sharing a node-local disk (0: one node)
  double internode_network_bytes_per_s = 0;  ///< B_c between nodes (0: network_bytes_per_s)
  std::uint64_t direct_read_bytes = 0;       ///< reads of at least this many bytes bypass the page cache (0: none)
  double disk_mixed_bytes_per_s = 0;         ///< the device's reads + writes per second at once (0: they take turns)
  double buffered_overlap = -1;  ///< overlap of reads through the page cache where large ones are direct (< 0: overlap)
  SourceLocation loc;
};

/// `symmetry c2v [restricted];`: the abelian point group whose irreps the ranges' orbitals carry.
struct PointGroup {
  std::string name;         ///< c1, cs, ci, c2, d2, c2v, c2h or d2h
  int irreps = 1;           ///< 1, 2, 4 or 8, numbered in Cotton's order (as psi4 numbers them)
  bool restricted = false;  ///< closed shell: the all-beta blocks are the all-alpha ones, not stored
  SourceLocation loc;
};

/// A whole .tce program after semantic checks.
struct Program {
  std::string file;  ///< path as given, for reports
  std::vector<Range> ranges;
  std::vector<Index> indices;
  std::vector<Tensor> tensors;
  std::vector<Statement> statements;
  std::optional<MachineDesc> machine;
  std::optional<PointGroup> symmetry;  ///< `symmetry NAME [restricted];`: tensors are symmetry-blocked

  /// Extent of index `index` (elements along it).
  std::uint64_t extent(int index) const { return ranges.at(indices.at(index).range).extent; }
  /// Number of elements of tensor `tensor` (product of its dims; 1 for rank 0).
  /// The frontend guarantees it fits in 64 bits.
  std::uint64_t elements(int tensor) const;
  /// Id of the range / index / tensor of that name, or -1.
  int find_range(const std::string& name) const;
  int find_index(const std::string& name) const;
  int find_tensor(const std::string& name) const;
};

/// The macro-index view of a two-operand statement, Gao et al. §2 Eq. 2.2:
/// C(I,J) += A(I,K) * B(J,K), A = operands[0], B = operands[1], C = result.
/// I = result indices found in A, J = result indices found in B (both in the
/// result's order), K = summed indices (in A's order). An empty set has extent 1.
struct MacroIndexGemm {
  std::vector<int> I, J, K;    ///< index ids
  std::uint64_t extent_I = 1;  ///< product of the extents in I (elements)
  std::uint64_t extent_J = 1;
  std::uint64_t extent_K = 1;
  std::uint64_t elements_A = 1;  ///< |I|·|K|
  std::uint64_t elements_B = 1;  ///< |J|·|K|
  std::uint64_t elements_C = 1;  ///< |I|·|J|
  double flops = 0;              ///< 2·|I|·|J|·|K| (exact up to 2^53)
  /// perm_X[p] = dimension of X (as stored) holding the p-th index of
  /// [I,K] for A, [J,K] for B, [I,J] for C. Identity means "already in GEMM layout".
  std::vector<int> perm_A, perm_B, perm_C;
  /// The result is symmetric, C(I,J) = C(J,I): A and B are the same tensor and each index of
  /// I sits where the index of J at the same group position sits (perm_A == perm_B), so I and
  /// J have the same extents (Beaumont et al. SPAA'22: the SYRK shape C = A·Aᵀ). Whether C's
  /// current value is added (which breaks the symmetry) is the cost model's to check.
  bool symmetric = false;

  /// Bytes of A, B, C for an element size in bytes.
  std::uint64_t bytes_A(std::uint64_t element_size) const { return elements_A * element_size; }
  std::uint64_t bytes_B(std::uint64_t element_size) const { return elements_B * element_size; }
  std::uint64_t bytes_C(std::uint64_t element_size) const { return elements_C * element_size; }
};

/// Builds the macro-index GEMM view of `s`. Precondition (TCEC_ASSERT): `s`
/// has two operands and passed the frontend's checks.
MacroIndexGemm macro_index_gemm(const Program& program, const Statement& s);

/// "t[p5,p6,h1,h2]" (indices by name).
std::string format_ref(const Program& program, const TensorRef& ref);
/// "i0[p3,p4,h1,h2] += 0.5 * t[p5,p6,h1,h2] * v[p3,p4,p5,p6]" in canonical spacing.
std::string format_statement(const Program& program, const Statement& s);
/// The whole program in .tce syntax, one declaration or statement a line: "range N = 4000;",
/// "index i : N;", "tensor A[N,N] input;" (intermediates "intermediate"), each statement
/// (format_statement()) with "  # line L" (its source line), and the machine's name ("# machine
/// NAME: P = 4") when it has one; with symmetry blocks "symmetry NAME [restricted];" first, each
/// range's "irreps (...)" and the tensors' attributes that are not the defaults. For tcec --print-after.
std::string format_program(const Program& program);
/// "C(I,J) += A(I,K) * B(J,K)  I={h1,h2} J={p3,p4} K={p5,p6}".
std::string format_macro_gemm(const Program& program, const Statement& s, const MacroIndexGemm& g);
/// "{p5,p6}" — a list of index ids by name.
std::string format_index_set(const Program& program, const std::vector<int>& indices);
// --- Symmetry blocks: the TCE's spin, point group and antisymmetric index pairs ---------------
// The element counts of symmetry-blocked tensors and contractions, as NWChem's TCE stores and
// multiplies them (src/tce/tce_tile.F, the generated ccsd_*.F loops): spin orbitals in groups of one
// spin and one irrep that no block crosses; a tensor's blocks conserve spin between its upper and
// lower index halves and have its irrep (abelian point groups: irreps 0..7 in Cotton's order, as
// psi4 numbers them, whose product is their XOR); one order of each antisymmetric run of indices
// is stored, a block of equal groups packed (m(m-1)/2 elements of a pair of one group of m); in
// restricted (closed-shell) mode the all-beta blocks are the all-alpha ones and are not stored.
// Not yet used by the planner or code generation: the counts the dry-run will report.

/// Spin of a group of spin orbitals.
enum class Spin : std::uint8_t { Alpha, Beta };

/// `extent` spin orbitals of one spin and one irrep (0..7).
struct OrbitalGroup {
  Spin spin = Spin::Alpha;
  int irrep = 0;
  std::uint64_t extent = 0;
};

/// A range's spin orbitals as groups in the TCE's order: alpha, then beta, each by irrep.
/// per_irrep[g]: spatial orbitals of irrep g (at most 8 irreps; an irrep with none has no group).
std::vector<OrbitalGroup> spin_orbital_groups(const std::vector<std::uint64_t>& per_irrep);

/// Which symmetries a count takes into account; each is independent of the others (all off: dense).
struct SymmetryRules {
  bool spin = true;           ///< blocks conserve spin: Σ m_s of the upper half = that of the lower half
  bool restricted = true;     ///< no all-beta block (closed shell: it equals the all-alpha one)
  bool antisymmetric = true;  ///< one order of each antisymmetric run, equal groups packed
  bool point_group = true;    ///< the XOR of a block's irreps is its tensor's irrep
  /// A block of equal groups in an antisymmetric run counts packed, C(m, r) elements; false: whole,
  /// m^r (as the TCE stores and multiplies a diagonal tile block).
  bool packed_diagonal = true;
};

/// A tensor as the counts see it: per dimension its index (an id into the caller's list of
/// indices' groups), the first `upper` dimensions the upper half, `antisymmetric` runs of
/// dimensions (each within one half, over indices of the same groups), and its irrep.
struct SymmetricTensor {
  std::vector<int> indices;
  std::size_t upper = 0;
  std::vector<std::vector<int>> antisymmetric;
  int irrep = 0;
};

/// Elements (not bytes) `t` stores under `rules`; groups[i] are index i's groups.
/// Throws std::invalid_argument for an antisymmetric run over indices of different groups.
std::uint64_t stored_elements(const SymmetricTensor& t, const std::vector<std::vector<OrbitalGroup>>& groups,
                              const SymmetryRules& rules);

/// Flops (2 per multiply-add) of C += A·B as the TCE loops it: over C's stored blocks and, for
/// the summed indices, one order of each run in `summed_antisymmetric` (indices, packed as C's
/// runs are), with every block of A and B that conserves spin and irrep (one stored in the other
/// order of a pair is read permuted, with its sign). groups[i] are index i's groups; an index of
/// A or B that is not in C is summed. Throws std::invalid_argument as stored_elements().
double contraction_flops(const SymmetricTensor& C, const SymmetricTensor& A, const SymmetricTensor& B,
                         const std::vector<std::vector<int>>& summed_antisymmetric,
                         const std::vector<std::vector<OrbitalGroup>>& groups, const SymmetryRules& rules);

/// The abelian point groups a `symmetry` declaration may name, and their irrep counts: c1 1;
/// cs, ci, c2 2; d2, c2v, c2h 4; d2h 8. nullopt for another name.
std::optional<int> point_group_irreps(const std::string& name);

/// Tensor t's antisymmetric runs as the TCE has them: each maximal run of two or more consecutive
/// dims over the same range within one half (upper_dims()), as dim positions; t.antisymmetric
/// where it is set. None when dense.
std::vector<std::vector<int>> antisymmetric_runs(const Tensor& t);

/// What the symmetry blocks of a two-operand statement come to, counted as NWChem's TCE loops
/// over them with one tile per orbital group (a diagonal block of an antisymmetric run stored and
/// multiplied whole): the elements A, B and C store, and the flops (2 per multiply-add) over C's
/// stored blocks, A's and B's non-zero blocks (spin conserved between each tensor's halves, irreps
/// XOR to its irrep) and one order of each summed antisymmetric run (summed indices that form one
/// run in A and one in B). SymmetryRules all on but packed_diagonal; `restricted` as declared.
struct ContractionSymmetry {
  std::uint64_t stored_A = 0, stored_B = 0, stored_C = 0;  ///< elements
  double flops = 0;
};
/// nullopt when `program` has no `symmetry` declaration or a tensor of `s` is dense.
/// Precondition: the frontend accepted the program (every range of a non-dense tensor has irreps).
std::optional<ContractionSymmetry> contraction_symmetry(const Program& program, const Statement& s);

/// "input", "output" or "intermediate".
const char* to_string(TensorRole role);
/// "=", "+=" or "-=".
const char* to_string(AssignOp op);

}  // namespace tcec::ir
