// tools/ccsd/residuals.cpp — Residuals (residuals.h): plan and emit with the compiler's stages,
// compile with the generated programs' tool chain, load with dlopen.
#include "residuals.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "bcast.h"
#include "codegen/codegen.h"
#include "frontend/frontend.h"
#include "ir/ir.h"
#include "runtime/base/error.h"
#include "runtime/comm/comm.h"
#include "tools/diagnostics.h"

namespace tcec::ccsd {

namespace {

namespace fs = std::filesystem;

constexpr const char* kSections[3] = {"ccsd_e", "ccsd_t1", "ccsd_t2"};

/// One section in the library form, the names of its inputs, and its contractions' flops.
struct Emitted {
  std::string header, source;
  std::vector<std::string> inputs;
  double flops = 0;
};

Emitted emit_section(const Equations& equations, const char* section, std::int64_t O, std::int64_t V,
                     const ir::MachineDesc& machine) {
  frontend::Options options;
  options.format = frontend::InputFormat::Nwchem;
  options.section = section;
  options.defines = {fmt::format("O={}", O), fmt::format("V={}", V)};
  options.machine = machine;
  const frontend::Result parsed = frontend::parse_source(equations.name, equations.text, options);
  if (!parsed.ok())
    throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_equations_invalid, section,
                                                 equations.name, parsed.diagnostics.render()));
  const codegen::Generated g =
      codegen::generate(*parsed.program, costmodel::PlanOptions{}, {section, codegen::EmitForm::Library});
  if (!g.ok()) {
    std::string text;
    for (const codegen::Diagnostic& d : g.diagnostics) text += fmt::format("\n  {}", d.message);
    throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_cannot_generate, section, text));
  }
  Emitted out{g.header, g.source, {}, 0};
  for (const ir::Tensor& t : parsed.program->tensors)
    if (t.role == ir::TensorRole::Input) out.inputs.push_back(t.name);
  for (const ir::Statement& s : parsed.program->statements)  // 2·|I|·|J|·|K| each (ir::MacroIndexGemm)
    if (s.operands.size() == 2) out.flops += ir::macro_index_gemm(*parsed.program, s).flops;
  return out;
}

void write_file(const fs::path& path, const std::string& text) {
  const fs::path temporary = path.string() + fmt::format(".tmp-{}", getpid());
  std::ofstream(temporary, std::ios::binary | std::ios::trunc) << text;
  fs::rename(temporary, path);
}

/// The text of every header of the runtime under `source_root` (source_root/runtime/**/*.h, in
/// its folders, by path), for the cache key of the compiled residuals; "" when the directory
/// cannot be read.
std::string runtime_headers(const std::string& source_root) {
  const fs::path root = fs::path(source_root) / "runtime";
  std::vector<fs::path> headers;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().extension() == ".h") headers.push_back(it->path());
  std::sort(headers.begin(), headers.end());
  std::string text;
  for (const fs::path& h : headers) {
    std::ifstream in(h, std::ios::binary);
    text += h.lexically_relative(root).string() + std::string(std::istreambuf_iterator<char>(in), {});
  }
  return text;
}

/// What rank 0 built: the object's path, and per section its inputs (names joined by spaces)
/// and its contractions' flops.
struct Built {
  std::string object;
  std::vector<std::string> inputs;
  std::vector<double> flops;
  std::uint64_t memory_bytes = 0;  // the machine's, per rank
};

/// Rank 0's part: emits the three sections, compiles them into DIR/ccsd_<hash>.so (unless it
/// exists), and returns its path, the inputs and the flops of each section.
Built build(std::int64_t O, std::int64_t V, const Equations& equations, const std::string& machine_file,
            const std::string& cache_dir) {
  frontend::DiagnosticList diagnostics;
  const std::optional<ir::MachineDesc> machine = frontend::parse_machine_file(machine_file, diagnostics);
  if (!machine || diagnostics.has_errors()) throw tcert::Error(diagnostics.render());
  Built out;
  out.memory_bytes = machine->memory_bytes;
  std::string all;
  Emitted emitted[3];
  for (int w = 0; w < 3; ++w) {
    emitted[w] = emit_section(equations, kSections[w], O, V, *machine);
    all += emitted[w].header + emitted[w].source;
    std::string names;
    for (const std::string& n : emitted[w].inputs) names += n + " ";
    out.inputs.push_back(names);
    out.flops.push_back(emitted[w].flops);
  }
  const codegen::Toolchain tools =
      codegen::installed_toolchain(fs::read_symlink("/proc/self/exe").string()).value_or(codegen::toolchain());
  // The object is compiled against the runtime's headers and calls into this executable's
  // runtime: a cached one is reused only with the same headers (their inline code and layouts).
  all += tools.compiler + runtime_headers(tools.source_root);
  const fs::path dir = fs::path(cache_dir) / fmt::format("ccsd_{:016x}", std::hash<std::string>{}(all));
  const fs::path object = dir / "residuals.so";
  out.object = object.string();
  if (fs::exists(object)) return out;
  fs::create_directories(dir);
  // Each source compiled on its own (through the tool chain's launcher, a compiler cache, when it
  // has one: a cache hit when the same residuals are built again), then linked into the object.
  const auto compile = [&](const fs::path& source, std::vector<std::string>& objects, std::string& output) {
    std::vector<std::string> command;
    if (!tools.launcher.empty()) command.push_back(tools.launcher);
    const std::string object_file = source.string() + ".o";
    command.insert(command.end(), {tools.compiler, "-std=c++20", "-O2", "-fPIC", "-I" + tools.source_root,
                                   "-I" + dir.string(), source.string(), "-c", "-o", object_file});
    objects.push_back(object_file);
    return codegen::run_command(command, &output) == 0;
  };
  std::string shim = "// The three residual functions of tcec-ccsd (tools/ccsd/residuals.cpp).\n";
  std::vector<fs::path> sources;
  for (int w = 0; w < 3; ++w) {
    write_file(dir / (std::string(kSections[w]) + ".h"), emitted[w].header);
    write_file(dir / (std::string(kSections[w]) + ".cpp"), emitted[w].source);
    sources.push_back(dir / (std::string(kSections[w]) + ".cpp"));
    shim += fmt::format("#include \"{}.h\"\n", kSections[w]);
  }
  shim +=
      "#include \"runtime/program/generated.h\"\n\nextern \"C\" void tcec_ccsd_functions(tcert::GeneratedFunction* "
      "out) {\n";
  for (int w = 0; w < 3; ++w) shim += fmt::format("  out[{}] = &tcec_gen::{};\n", w, kSections[w]);
  shim += "}\n";
  write_file(dir / "functions.cpp", shim);
  sources.push_back(dir / "functions.cpp");
  const std::string temporary = object.string() + fmt::format(".tmp-{}", getpid());
  std::vector<std::string> objects;
  std::string output;
  bool ok = true;
  for (const fs::path& source : sources) ok = ok && compile(source, objects, output);
  std::vector<std::string> link = {tools.compiler, "-shared"};
  link.insert(link.end(), objects.begin(), objects.end());
  link.insert(link.end(), {"-o", temporary});
  ok = ok && codegen::run_command(link, &output) == 0;
  std::error_code ignored;
  for (const std::string& o : objects) fs::remove(o, ignored);
  if (!ok)
    throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_compile_failed, dir.string(), output));
  fs::rename(temporary, object);
  return out;
}

/// Makes rank 0's compiled object `object` (a path every rank names alike) a file on every
/// rank: where the cache directory is node-local, the ranks of other nodes do not see rank 0's
/// file, so rank 0 sends its bytes and each rank that lacks it (or has another size) writes them
/// under a name of its own and renames it into place (ranks of one node write the same bytes).
/// Collective. Throws tcert::Error on every rank, with the lowest failing rank's message, when a
/// rank cannot write it.
void install_everywhere(MPI_Comm comm, const std::string& object) {
  const tcert::Context ctx(comm);
  std::error_code ec;
  const std::uintmax_t bytes = std::stoull(ctx.root_value([&] { return std::to_string(fs::file_size(object)); }));
  const bool lacks = fs::file_size(object, ec) != bytes || ec;
  if (ctx.all_true(!lacks)) return;
  std::string data;
  if (ctx.rank() == 0) {
    std::ifstream in(object, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  data = ctx.bcast_string(data);
  ctx.check_all([&] {
    if (!lacks) return;
    const fs::path temporary = object + fmt::format(".tmp-{}-{}", getpid(), ctx.rank());
    fs::create_directories(fs::path(object).parent_path(), ec);
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (out) fs::rename(temporary, object, ec);
    if (!out || ec) {
      fs::remove(temporary, ec);
      throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_write, object));
    }
  });
}

}  // namespace

Residuals::Residuals(MPI_Comm comm, std::int64_t O, std::int64_t V, const Equations& equations,
                     const std::string& machine_file, const std::string& cache_dir) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Rank 0 builds; its error (or the object's path and the inputs) reaches every rank.
  std::string error, object, names[3], flops[3], memory;
  if (rank == 0) {
    try {
      const Built built = build(O, V, equations, machine_file, cache_dir);
      object = built.object, memory = std::to_string(built.memory_bytes);
      for (int w = 0; w < 3; ++w) {
        names[w] = built.inputs[static_cast<std::size_t>(w)];
        flops[w] = fmt::format("{:.17g}", built.flops[static_cast<std::size_t>(w)]);
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  error = bcast_string(comm, error);
  if (!error.empty()) throw tcert::Error(error);
  object = bcast_string(comm, object);
  memory_bytes_ = std::stoull(bcast_string(comm, memory));
  for (int w = 0; w < 3; ++w) {
    std::istringstream in(bcast_string(comm, names[w]));
    for (std::string n; in >> n;) inputs_[w].push_back(n);
    flops_[w] = std::stod(bcast_string(comm, flops[w]));
  }
  install_everywhere(comm, object);
  handle_ = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_load, object, dlerror()));
  using Table = void (*)(tcert::GeneratedFunction*);
  auto table = reinterpret_cast<Table>(dlsym(handle_, "tcec_ccsd_functions"));
  if (!table) throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_no_functions, object));
  table(functions_);
}

Residuals::~Residuals() {
  if (handle_) dlclose(handle_);
}

tcert::Status Residuals::call(Which which, MPI_Comm comm, const tcert::TensorLocations& given,
                              const tcert::RunOptions& options) const {
  tcert::TensorLocations tensors;
  for (const std::string& name : inputs_[which]) {
    if (const auto part = given.input_parts.find(name); part != given.input_parts.end()) {
      tensors.input_parts[name] = part->second;
    } else if (const auto file = given.inputs.find(name); file != given.inputs.end()) {
      tensors.inputs[name] = file->second;
    } else {
      return tcert::Status::failure(fmt::format("no file for input {} of {}", name, kSections[which]));
    }
  }
  if (const auto part = given.output_parts.find("i0"); part != given.output_parts.end())
    tensors.output_parts["i0"] = part->second;
  else if (const auto file = given.outputs.find("i0"); file != given.outputs.end())
    tensors.outputs["i0"] = file->second;
  return functions_[which](comm, tensors, options);
}

}  // namespace tcec::ccsd
