// tests/frontend/frontend_test.cpp — the frontend on valid input, machine
// units, -D overrides, rendering, hostile input, machine files and TCCG import.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "frontend/frontend.h"

namespace {

using tcec::frontend::InputFormat;
using tcec::frontend::Options;
using tcec::frontend::parse_source;

const char* kProgram = R"(# a comment
// another comment
range O = 10, V = 30;
index h1, h2, h3 : O;
index p1, p2, p3 : V;
tensor t[V,V,O,O] input;
tensor f[O,O] input;
tensor w[V,V] input;
tensor e[] output;
tensor x[V,V,O,O];
tensor r[V,V,O,O] output;
r[p1,p2,h1,h2] += -1 * t[p1,p2,h1,h3] * f[h3,h2];
r[p1,p2,h1,h2] += 1/2 * t[p1,p3,h1,h2] * w[p3,p2];
x[p1,p2,h1,h2] = t[p2,p1,h1,h2];
e[] = 0.25 * t[p1,p2,h1,h2] * r[p1,p2,h1,h2];
r[p1,p2,h1,h2] -= x[p1,p2,h1,h2];
machine osc {
  processors 4;
  memory 64 MB;
  network 200 MB/s;
  disk 8 MB/s;
  disk_write 4 MiB/s;
  element_size 8;
  replication_factor 1.5;
  reduction_factor 1.4;
}
)";

TEST(Frontend, ValidProgramBuildsTheIr) {
  auto r = parse_source("p.tce", kProgram, {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const auto& p = *r.program;
  ASSERT_EQ(p.ranges.size(), 2u);
  EXPECT_EQ(p.ranges[1].name, "V");
  EXPECT_EQ(p.ranges[1].extent, 30u);
  ASSERT_EQ(p.indices.size(), 6u);
  EXPECT_EQ(p.indices[3].name, "p1");
  EXPECT_EQ(p.indices[3].range, 1);
  ASSERT_EQ(p.tensors.size(), 6u);
  EXPECT_EQ(p.tensors[0].role, tcec::ir::TensorRole::Input);
  EXPECT_EQ(p.tensors[3].dims.size(), 0u);
  EXPECT_EQ(p.tensors[4].role, tcec::ir::TensorRole::Intermediate);
  EXPECT_EQ(p.elements(0), 90000u);
  EXPECT_EQ(p.elements(3), 1u);
  ASSERT_EQ(p.statements.size(), 5u);
  EXPECT_EQ(p.statements[0].coefficient, -1.0);
  EXPECT_EQ(p.statements[0].coefficient_text, "-1");
  EXPECT_EQ(p.statements[0].loc.line, 12);
  EXPECT_EQ(p.statements[0].source_text, "r[p1,p2,h1,h2] += -1 * t[p1,p2,h1,h3] * f[h3,h2];");
  EXPECT_EQ(p.statements[1].coefficient, 0.5);
  EXPECT_EQ(p.statements[2].op, tcec::ir::AssignOp::Assign);
  EXPECT_EQ(p.statements[2].operands.size(), 1u);
  EXPECT_EQ(p.statements[3].coefficient, 0.25);
  EXPECT_EQ(p.statements[4].op, tcec::ir::AssignOp::Subtract);
  EXPECT_EQ(p.statements[4].coefficient_text, "");
}

TEST(Frontend, MachineUnits) {
  auto r = parse_source("p.tce", kProgram, {});
  ASSERT_TRUE(r.ok());
  const auto& m = *r.program->machine;
  EXPECT_EQ(m.name, "osc");
  EXPECT_EQ(m.processors, 4);
  EXPECT_EQ(m.memory_bytes, 64000000u);
  EXPECT_EQ(m.network_bytes_per_s, 200e6);
  EXPECT_EQ(m.disk_read_bytes_per_s, 8e6);
  EXPECT_EQ(m.disk_write_bytes_per_s, 4.0 * 1048576);
  EXPECT_EQ(m.element_size_bytes, 8u);
  EXPECT_EQ(m.replication_factor, 1.5);
  EXPECT_EQ(m.reduction_factor, 1.4);
}

TEST(Frontend, MachineDefaultsAndBinaryUnits) {
  auto r = parse_source("m.tce", "machine m { processors 9; memory 1 GiB; network 1.5 GB/s; disk 100 KiB/s; }", {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const auto& m = *r.program->machine;
  EXPECT_EQ(m.memory_bytes, 1073741824u);
  EXPECT_EQ(m.network_bytes_per_s, 1.5e9);
  EXPECT_EQ(m.disk_read_bytes_per_s, 102400.0);
  EXPECT_EQ(m.disk_write_bytes_per_s, 102400.0);
  EXPECT_EQ(m.element_size_bytes, 8u);
  EXPECT_EQ(m.replication_factor, 1.0);
  EXPECT_EQ(m.reduction_factor, 1.0);
  EXPECT_EQ(m.disk_latency_s, 0.0);
}

TEST(Frontend, TensorsDeclareInACommaList) {
  auto r = parse_source("t.tce",
                        "range N = 4;\nindex i, j, k : N;\ntensor A[N,N] input, B[N,N] input, C[N,N] output;\n"
                        "C[i,j] += A[i,k] * B[j,k];\n",
                        {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  ASSERT_EQ(r.program->tensors.size(), 3u);
  EXPECT_EQ(r.program->tensors[1].name, "B");
  EXPECT_EQ(r.program->tensors[1].role, tcec::ir::TensorRole::Input);
  EXPECT_EQ(r.program->tensors[2].role, tcec::ir::TensorRole::Output);
  auto dup = parse_source("t.tce", "range N = 4;\ntensor A[N] input, A[N] output;\n", {});
  EXPECT_FALSE(dup.ok());
  EXPECT_NE(dup.diagnostics.render().find("t.tce:2:20: error: "), std::string::npos) << dup.diagnostics.render();
}

TEST(Frontend, DiskLatencyTakesATimeUnit) {
  for (const auto& [text, seconds] : std::vector<std::pair<std::string, double>>{
           {"0 s", 0.0}, {"2 ms", 2e-3}, {"150 us", 150e-6}, {"80 ns", 80e-9}, {"0.5 s", 0.5}}) {
    auto r = parse_source(
        "m.tce", "machine m { processors 1; memory 1 MB; network 1 GB/s; disk 1 GB/s; disk_latency " + text + "; }",
        {});
    ASSERT_TRUE(r.ok()) << text << r.diagnostics.render();
    EXPECT_DOUBLE_EQ(r.program->machine->disk_latency_s, seconds) << text;
  }
  auto bad = parse_source(
      "m.tce", "machine m { processors 1; memory 1 MB; network 1 GB/s; disk 1 GB/s; disk_latency 2 MB; }", {});
  EXPECT_EQ(bad.diagnostics.render(),
            "m.tce:1:84: error: unknown unit 'MB' for 'disk_latency'; expected one of s, ms, us, ns\n"
            "machine m { processors 1; memory 1 MB; network 1 GB/s; disk 1 GB/s; disk_latency 2 MB; }\n"
            "                                                                                   ^\n");
}

TEST(Frontend, MemoryBandwidthIsABandwidthAndOffByDefault) {
  const std::string head = "machine m { processors 1; memory 1 MB; network 1 GB/s; disk 1 GB/s; ";
  auto plain = parse_source("m.tce", head + "}", {});
  ASSERT_TRUE(plain.ok()) << plain.diagnostics.render();
  EXPECT_EQ(plain.program->machine->memory_bytes_per_s, 0.0);
  auto set = parse_source("m.tce", head + "memory_bandwidth 12.5 GB/s; }", {});
  ASSERT_TRUE(set.ok()) << set.diagnostics.render();
  EXPECT_DOUBLE_EQ(set.program->machine->memory_bytes_per_s, 12.5e9);
  auto bad = parse_source("m.tce", head + "memory_bandwidth 0 GB/s; }", {});
  EXPECT_EQ(bad.diagnostics.render(),
            "m.tce:1:86: error: 'memory_bandwidth' must be positive, got 0\n"
            "machine m { processors 1; memory 1 MB; network 1 GB/s; disk 1 GB/s; memory_bandwidth 0 GB/s; }\n"
            "                                                                                     ^\n");
}

TEST(Frontend, PageFaultIsADurationAndOffByDefault) {
  const std::string head = "machine m { processors 1; memory 1 MB; network 1 GB/s; disk 1 GB/s; ";
  auto plain = parse_source("m.tce", head + "}", {});
  ASSERT_TRUE(plain.ok()) << plain.diagnostics.render();
  EXPECT_EQ(plain.program->machine->page_fault_s, 0.0);
  auto set = parse_source("m.tce", head + "page_fault 6.5 us; }", {});
  ASSERT_TRUE(set.ok()) << set.diagnostics.render();
  EXPECT_DOUBLE_EQ(set.program->machine->page_fault_s, 6.5e-6);
  auto bad = parse_source("m.tce", head + "page_fault 6.5; }", {});
  EXPECT_EQ(bad.diagnostics.render(),
            "m.tce:1:80: error: 'page_fault' needs a unit, one of s, ms, us, ns\n"
            "machine m { processors 1; memory 1 MB; network 1 GB/s; disk 1 GB/s; page_fault 6.5; }\n"
            "                                                                               ^\n");
}

TEST(Frontend, OverlapIsAShareFromZeroToOne) {
  const std::string head = "machine m { processors 1; memory 1 MB; network 1 GB/s; disk 1 GB/s; ";
  auto plain = parse_source("m.tce", head + "}", {});
  ASSERT_TRUE(plain.ok()) << plain.diagnostics.render();
  EXPECT_EQ(plain.program->machine->overlap, 1.0);
  for (const auto& [text, share] :
       std::vector<std::pair<std::string, double>>{{"0", 0.0}, {"0.25", 0.25}, {"1", 1.0}}) {
    auto r = parse_source("m.tce", head + "overlap " + text + "; }", {});
    ASSERT_TRUE(r.ok()) << text << r.diagnostics.render();
    EXPECT_DOUBLE_EQ(r.program->machine->overlap, share) << text;
  }
  EXPECT_EQ(parse_source("m.tce", head + "overlap 1.5; }", {}).diagnostics.render(),
            "m.tce:1:77: error: 'overlap' must be from 0 to 1, got 1.5\n"
            "machine m { processors 1; memory 1 MB; network 1 GB/s; disk 1 GB/s; overlap 1.5; }\n"
            "                                                                            ^\n");
  EXPECT_EQ(parse_source("m.tce", head + "overlap 0.5 s; }", {}).diagnostics.render(),
            "m.tce:1:81: error: 'overlap' takes no unit, got 's'\n"
            "machine m { processors 1; memory 1 MB; network 1 GB/s; disk 1 GB/s; overlap 0.5 s; }\n"
            "                                                                                ^\n");
}

TEST(Frontend, RanksPerNodeIsAPositiveCount) {
  const std::string head = "machine m { processors 4; memory 1 MB; network 1 GB/s; disk 1 GB/s; ";
  auto plain = parse_source("m.tce", head + "}", {});
  ASSERT_TRUE(plain.ok()) << plain.diagnostics.render();
  EXPECT_EQ(plain.program->machine->ranks_per_node, 0);  // one node
  auto two = parse_source("m.tce", head + "ranks_per_node 2; }", {});
  ASSERT_TRUE(two.ok()) << two.diagnostics.render();
  EXPECT_EQ(two.program->machine->ranks_per_node, 2);
  EXPECT_EQ(parse_source("m.tce", head + "ranks_per_node 0; }", {}).diagnostics.render(),
            "m.tce:1:84: error: 'ranks_per_node' must be positive, got 0\n"
            "machine m { processors 4; memory 1 MB; network 1 GB/s; disk 1 GB/s; ranks_per_node 0; }\n"
            "                                                                                   ^\n");
  EXPECT_EQ(parse_source("m.tce", head + "ranks_per_node 1.5; }", {}).diagnostics.render(),
            "m.tce:1:84: error: 'ranks_per_node' must be a whole number, got 1.5\n"
            "machine m { processors 4; memory 1 MB; network 1 GB/s; disk 1 GB/s; ranks_per_node 1.5; }\n"
            "                                                                                   ^\n");
}

TEST(Frontend, InternodeNetworkIsABandwidth) {
  const std::string head = "machine m { processors 4; memory 1 MB; network 1 GB/s; disk 1 GB/s; ranks_per_node 2; ";
  auto plain = parse_source("m.tce", head + "}", {});
  ASSERT_TRUE(plain.ok()) << plain.diagnostics.render();
  EXPECT_EQ(plain.program->machine->internode_network_bytes_per_s, 0.0);  // the network's
  auto slow = parse_source("m.tce", head + "internode_network 100 MB/s; }", {});
  ASSERT_TRUE(slow.ok()) << slow.diagnostics.render();
  EXPECT_EQ(slow.program->machine->internode_network_bytes_per_s, 100e6);
  EXPECT_EQ(
      parse_source("m.tce", head + "internode_network 4; }", {}).diagnostics.render(),
      "m.tce:1:105: error: 'internode_network' needs a unit, one of B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, "
      "MiB/s, GiB/s, TiB/s\n"
      "machine m { processors 4; memory 1 MB; network 1 GB/s; disk 1 GB/s; ranks_per_node 2; "
      "internode_network 4; }\n"
      "                                                                                                        ^\n");
}

TEST(Frontend, DirectReadBytesIsASizeAndOffByDefault) {
  const std::string head = "machine m { processors 4; memory 1 MB; network 1 GB/s; disk 1 GB/s; ";
  auto plain = parse_source("m.tce", head + "}", {});
  ASSERT_TRUE(plain.ok()) << plain.diagnostics.render();
  EXPECT_EQ(plain.program->machine->direct_read_bytes, 0u);  // every read through the page cache
  auto direct = parse_source("m.tce", head + "direct_read_bytes 2 MiB; }", {});
  ASSERT_TRUE(direct.ok()) << direct.diagnostics.render();
  EXPECT_EQ(direct.program->machine->direct_read_bytes, std::uint64_t{2} << 20);
  EXPECT_EQ(parse_source("m.tce", head + "direct_read_bytes 2 MB/s; }", {}).diagnostics.render(),
            "m.tce:1:89: error: unknown unit 'MB/s' for 'direct_read_bytes'; expected one of B, KB, MB, GB, TB, "
            "KiB, MiB, GiB, TiB\n"
            "machine m { processors 4; memory 1 MB; network 1 GB/s; disk 1 GB/s; direct_read_bytes 2 MB/s; }\n"
            "                                                                                        ^\n");
}

TEST(Frontend, DiskMixedAndBufferedOverlapAreOffByDefault) {
  const std::string head = "machine m { processors 4; memory 1 MB; network 1 GB/s; disk 1 GB/s; ";
  auto plain = parse_source("m.tce", head + "}", {});
  ASSERT_TRUE(plain.ok()) << plain.diagnostics.render();
  EXPECT_EQ(plain.program->machine->disk_mixed_bytes_per_s, 0.0);  // reads and writes take turns
  auto mixed = parse_source("m.tce", head + "disk_mixed 1500 MB/s; }", {});
  ASSERT_TRUE(mixed.ok()) << mixed.diagnostics.render();
  EXPECT_EQ(mixed.program->machine->disk_mixed_bytes_per_s, 1.5e9);
  EXPECT_EQ(plain.program->machine->buffered_overlap, -1.0);  // overlap for every read
  auto buffered = parse_source("m.tce", head + "buffered_overlap 0.25; }", {});
  ASSERT_TRUE(buffered.ok()) << buffered.diagnostics.render();
  EXPECT_EQ(buffered.program->machine->buffered_overlap, 0.25);
  EXPECT_EQ(parse_source("m.tce", head + "disk_mixed 2 MB; }", {}).diagnostics.render(),
            "m.tce:1:82: error: unknown unit 'MB' for 'disk_mixed'; expected one of B/s, KB/s, MB/s, GB/s, TB/s, "
            "KiB/s, MiB/s, GiB/s, TiB/s\n"
            "machine m { processors 4; memory 1 MB; network 1 GB/s; disk 1 GB/s; disk_mixed 2 MB; }\n"
            "                                                                                 ^\n");
}

TEST(Frontend, DefinesOverrideRanges) {
  Options o;
  o.defines = {"O=100", "V=7"};
  auto r = parse_source("p.tce", kProgram, o);
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  EXPECT_EQ(r.program->ranges[0].extent, 100u);
  EXPECT_EQ(r.program->elements(0), 7u * 7 * 100 * 100);
}

TEST(Frontend, BadDefinesAreReported) {
  for (const auto& [define, message] : std::vector<std::pair<std::string, std::string>>{
           {"Q=5", "tcec: error: -D Q=5: no range named 'Q'\n"},
           {"O=0", "tcec: error: -D O=0: the extent must be a whole number from 1 to 2^40, got '0'\n"},
           {"O=x", "tcec: error: -D O=x: the extent must be a whole number from 1 to 2^40, got 'x'\n"},
           {"O=1099511627777",
            "tcec: error: -D O=1099511627777: the extent must be a whole number from 1 to 2^40, got '1099511627777'\n"},
           {"O", "tcec: error: -D expects NAME=VALUE, got 'O'\n"}}) {
    Options o;
    o.defines = {define};
    auto r = parse_source("p.tce", kProgram, o);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.diagnostics.render(), message);
  }
}

TEST(Frontend, RendersLikeClang) {
  auto r = parse_source("x.tce", "range N = 4;\nindex i : M;\n", {});
  EXPECT_EQ(r.diagnostics.render(),
            "x.tce:2:11: error: use of undeclared range 'M'\n"
            "index i : M;\n"
            "          ^\n");
}

TEST(Frontend, CaretFollowsTabs) {
  auto r = parse_source("x.tce", "\trange N = 0;\n", {});
  EXPECT_EQ(r.diagnostics.render(),
            "x.tce:1:12: error: range 'N' must be positive, got 0\n"
            "\trange N = 0;\n"
            "\t          ^\n");
}

TEST(Frontend, BinaryGarbageStopsAtTwentyErrors) {
  std::mt19937 rng(7);
  std::string garbage(4096, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  auto r = parse_source("g.tce", garbage, {});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.error_count(), tcec::frontend::DiagnosticList::kMaxErrors);
  EXPECT_EQ(r.diagnostics.all().back().message, "too many errors emitted, stopping now");
  EXPECT_EQ(r.diagnostics.render().find('\0'), std::string::npos);
}

TEST(Frontend, SyntaxErrorsStopAtTwentyErrors) {
  // Thirty bad declarations: the first twenty are reported, then the fatal error and nothing
  // else (the parse stops there; what it reports is what a parse to the end reported).
  std::string source = "range N = 4;\n";
  for (int i = 0; i < 30; ++i) source += "tensor ;\n";
  auto r = parse_source("s.tce", source, {});
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.all().size(), 21u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(r.diagnostics.all()[static_cast<std::size_t>(i)].loc.line, i + 2) << i;
  EXPECT_EQ(r.diagnostics.all()[3].message, "unexpected ';'; expected an identifier");
  EXPECT_EQ(r.diagnostics.all().back().message, "too many errors emitted, stopping now");
}

TEST(Frontend, NonAsciiInCommentsIsFine) {
  auto r = parse_source("u.tce", "# Gao et al. — Table 8, µs ✓\nrange N = 4; // ünïcödé\n", {});
  EXPECT_TRUE(r.ok()) << r.diagnostics.render();
}

TEST(Frontend, NonAsciiOutsideCommentsIsAnError) {
  auto r = parse_source("u.tce", "range N\xC3\xA9 = 4;\n", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.all()[0].message, "invalid byte 0xC3 (the input must be ASCII text outside comments)");
  EXPECT_EQ(r.diagnostics.all()[0].loc, (tcec::ir::SourceLocation{1, 8}));
}

TEST(Frontend, IdentifiersOfAnyLength) {
  const std::string index(100000, 'i'), range = "R" + std::string(50000, 'r');
  std::string text = "range " + range + " = 3; index " + index + " : " + range + ";\n" + "tensor T[" + range +
                     "] input; tensor U[" + range + "] output;\n" + "U[" + index + "] = T[" + index + "];\n";
  auto r = parse_source("long.tce", text, {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render().substr(0, 300);
  EXPECT_EQ(r.program->indices[0].name.size(), 100000u);
  auto bad = parse_source("long.tce", "index " + index + " : Nope;\n", {});
  EXPECT_EQ(bad.diagnostics.all()[0].loc, (tcec::ir::SourceLocation{1, 100010}));
}

TEST(Frontend, EmptyProgramIsValid) {
  auto r = parse_source("empty.tce", "", {});
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.program->statements.empty());
}

TEST(Frontend, MissingFile) {
  auto r = tcec::frontend::parse_file("/nonexistent/x.tce", {});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.render(), "tcec: error: cannot read '/nonexistent/x.tce': No such file or directory\n");
}

std::string write_temp(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(Frontend, MachineFile) {
  auto path =
      write_temp("tcec_test.machine", "machine m { processors 16; memory 2 GB; network 10 GB/s; disk 1 GB/s; }\n");
  tcec::frontend::DiagnosticList d;
  auto m = tcec::frontend::parse_machine_file(path, d);
  ASSERT_TRUE(m.has_value()) << d.render();
  EXPECT_EQ(m->processors, 16);
  EXPECT_EQ(m->memory_bytes, 2000000000u);
}

TEST(Frontend, MachineFileWithOtherContent) {
  auto path = write_temp("tcec_bad.machine",
                         "range N = 4;\nmachine m { processors 1; memory 1 GB; network 1 GB/s; disk 1 GB/s; }\n");
  tcec::frontend::DiagnosticList d;
  EXPECT_FALSE(tcec::frontend::parse_machine_file(path, d).has_value());
  EXPECT_EQ(d.all().at(0).message, "a machine file may contain only a machine block");
  EXPECT_EQ(d.all().at(0).loc, (tcec::ir::SourceLocation{1, 1}));
  auto empty = write_temp("tcec_empty.machine", "# nothing\n");
  tcec::frontend::DiagnosticList d2;
  EXPECT_FALSE(tcec::frontend::parse_machine_file(empty, d2).has_value());
  EXPECT_EQ(d2.all().at(0).message, "no machine block in machine file");
}

Options tccg() {
  Options o;
  o.format = InputFormat::Tccg;
  return o;
}

TEST(Tccg, ImportsASection) {
  auto r =
      parse_source("t.txt", "# c\n[tccg_07]\nindices = bda-dc-abc\nextents = a:4 c:3 b:5 d:6\nrepeats = 1\n", tccg());
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const auto& p = *r.program;
  ASSERT_EQ(p.statements.size(), 1u);
  EXPECT_EQ(tcec::ir::format_statement(p, p.statements[0]),
            "C_07[a_07,b_07,c_07] = A_07[b_07,d_07,a_07] * B_07[d_07,c_07]");
  EXPECT_EQ(p.statements[0].source_text, "[tccg_07] indices = bda-dc-abc");
  EXPECT_EQ(p.statements[0].loc.line, 2);
  EXPECT_EQ(p.file, "t.txt");
}

TEST(Tccg, Errors) {
  struct Case {
    std::string text, message;
    int line, column;
  };
  for (const Case& c : std::vector<Case>{
           {"indices = a-b-c\n", "expected a section header such as '[tccg_01]'", 1, 1},
           {"[t_1]\nindices = ab-b\n", "'indices' must be three index strings A-B-C, got 'ab-b'", 2, 11},
           {"[t_1]\nindices = ab-bc-ac\nextents = a:4 b:x\n",
            "bad extent 'b:x': expected LETTER:SIZE with SIZE from 1 to 2^40", 3, 15},
           {"[t_1]\nindices = ab-bc-ac\nextents = a:4 b:5\n", "index 'c' of section 't_1' has no extent", 1, 1},
           {"[t_1]\nfoo = 3\n", "expected 'indices = A-B-C', 'extents = a:24 b:36 ...' or 'repeats = N'", 2, 1},
           {"[t_1]\nextents = a:4\n", "section 't_1' lacks 'indices'", 1, 1},
           // Found by the fuzzer (tests/fuzz/): the checks of the generated .tce text, at the TCCG text.
           {"[t_1]\nindices = abb-bc-ac\nextents = a:4 b:4 c:4\n",
            "index 'b_1' appears more than once in 'A_1[a_1,b_1,b_1]'", 2, 11},
           {"[t 1]\n", "section name 't 1' may hold only letters, digits and '_'", 1, 2},
           {"[t_1]\n  [u_1]\n",
            "section 'u_1' ends in '1' as section 't_1' (line 1) does; their tensors and indices would have the same "
            "names",
            2, 4}}) {
    auto r = parse_source("t.txt", c.text, tccg());
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.diagnostics.all().at(0).message, c.message);
    EXPECT_EQ(r.diagnostics.all().at(0).loc, (tcec::ir::SourceLocation{c.line, c.column})) << c.text;
  }
}

}  // namespace
