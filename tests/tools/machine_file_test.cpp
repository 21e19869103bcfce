// tcec-calibrate's machine block (tools/calibrate/machine_file.h): its exact text, and that the
// .tce parser reads every figure back.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "frontend/frontend.h"
#include "machine_file.h"

namespace {

tcec::calibrate::Measured sample() {
  tcec::calibrate::Measured m;
  m.processors = 4;
  m.memory_bytes = 12000000;
  m.memory_how = "per rank for tiles, from --memory";
  m.network_bytes_per_s = 1209.5678e6;
  m.disk_read_bytes_per_s = 7497.41e6;
  m.disk_write_bytes_per_s = 168.34e6;
  m.disk_latency_s = 2.245e-6;
  m.replication_factor = 1.5094;
  m.reduction_factor = 4.626;
  m.flops_per_s = 23.7689e9;
  m.small_flops_per_s = 53.383e9;
  m.memory_bytes_per_s = 13854.26e6;
  m.disk_pwrite_bytes_per_s = 140.25e6;
  m.disk_rewrite_bytes_per_s = 912.5e6;
  m.disk_pread_latency_s = 7.5e-6;
  m.disk_reused_write_bytes_per_s = 298.76e6;
  m.disk_fault_s = 3.21e-6;
  m.disk_bytes = 256000000;
  m.message_bytes = 16000000;
  m.kernel_n = 768;
  m.overlap = 0.43219;
  m.overlap_disk_s = 0.2014, m.overlap_kernel_s = 0.1987, m.overlap_both_s = 0.2881;
  m.direct_read_bytes_per_s = 912.345e6, m.direct_overlap = 0.8771;
  m.host = "vm";
  m.date = "2026-11-25 10:17 UTC";
  return m;
}

/// Expects each of `lines` (whole lines, '\n' included, or a line's start) in `text`.
void expect_lines(const std::string& text, std::initializer_list<const char*> lines) {
  for (const char* line : lines) EXPECT_NE(text.find(line), std::string::npos) << line << "\n---\n" << text;
}

TEST(MachineFile, SaysHowEachFigureWasMeasured) {
  EXPECT_EQ(tcec::calibrate::machine_text(sample()),
            "# tcec-calibrate on vm, 2026-11-25 10:17 UTC: P = 4 ranks measured at once.\n"
            "machine calibrated {\n"
            "  processors 4;                  # the ranks of the calibration run\n"
            "  memory 12 MB;                  # per rank for tiles, from --memory\n"
            "  network 1209.57 MB/s;          # ring shift of 16.00 MB messages, every rank sending and receiving; "
            "slowest rank\n"
            "  disk_read 7497.41 MB/s;        # reading back 256.00 MB per rank in 4 MB requests, as programs read "
            "tiled files; slowest rank\n"
            "  disk_write 168.34 MB/s;        # writing 256.00 MB per rank into a new result file through its "
            "mapping, as programs write results; slowest rank (a second new file right after removing it 298.76 "
            "MB/s; 4 MB pwrites into a new file 140.25 MB/s, in place 912.50 MB/s)\n"
            "  disk_latency 2.245 us;         # runs of 16 elements read through a mapping, as programs read tensors, "
            "its pages mapped: time per run beyond its bytes at disk_read, median of 3 passes in each of 3 mappings "
            "(7.500 us per 8 KB read at a random offset)\n"
            "  page_fault 3.210 us;           # the first pass over those runs, its pages faulting in: its time beyond "
            "the mapped passes' per 64 KiB fault-around window, median of the 3 mappings\n"
            "  replication_factor 1.509;      # ring all-gather time over (P - 1) pieces at the network bandwidth\n"
            "  reduction_factor 4.626;        # all-reduce time over its bytes x log2 P at the network bandwidth\n"
            "  flops 23.769 GFLOP/s;          # tile kernel on 768x768x768 tiles, all ranks at once; slowest rank "
            "(53.383 GFLOP/s on 64x64x64)\n"
            "  memory_bandwidth 13854.26 MB/s; # tile kernel on a 1024x1024 C tile (8 MB) with K = 8, all ranks at "
            "once: C in and out and the panels per call; slowest rank\n"
            "  overlap 0.432;                 # disk reads on an I/O thread 0.201 s, kernel 0.199 s, both at once "
            "0.288 s; slowest rank (with O_DIRECT reads, past the page cache: 912.35 MB/s, overlap 0.877)\n"
            "}\n");
}

TEST(MachineFile, SaysWhenTheMachineGivesFreedMemoryBackToItsHost) {
  tcec::calibrate::Measured m = sample();
  m.reported_to_host_kib = 3 * 1024 * 1024 + 512 * 1024;
  const std::string text = tcec::calibrate::machine_text(m);
  EXPECT_NE(text.find("# tcec-calibrate on vm, 2026-11-25 10:17 UTC: P = 4 ranks measured at once.\n"
                      "# This machine gives freed memory back to its host (free page reporting, 3.5 GiB since boot): "
                      "writes\n"
                      "# into new pages then wait for the host to back them, so disk_write and programs' writes vary "
                      "with how\n"
                      "# long before them memory was freed (seconds: see the README's fidelity benchmark).\n"
                      "machine calibrated {\n"),
            std::string::npos)
      << text;
  auto r = tcec::frontend::parse_source("calibrated.machine", text, {});
  EXPECT_TRUE(r.ok()) << r.diagnostics.render();
}

TEST(MachineFile, SaysWhenODirectWasRefused) {
  tcec::calibrate::Measured m = sample();
  m.direct_overlap = -1;
  EXPECT_NE(tcec::calibrate::machine_text(m).find("0.288 s; slowest rank (O_DIRECT refused here)\n"),
            std::string::npos);
}

// The device past the page cache (issue 51): which regime the disk figures describe, the device's
// own figures, in the header comment and the JSON.
tcec::calibrate::Measured with_device(std::int64_t disk_read_device_bytes) {
  tcec::calibrate::Measured m = sample();
  m.disk_read_device_bytes = disk_read_device_bytes;
  m.device.bytes = 268435456;
  m.device.direct_read_bytes_per_s = 1300.5e6, m.device.direct_write_bytes_per_s = 1400.25e6;
  m.device.synced_write_bytes_per_s = 1100e6, m.device.cold_read_bytes_per_s = 1250e6;
  m.device.cold_read_device_bytes = 268435456, m.device.direct_read_device_bytes = 268435456;
  m.device.direct_request_s = 87.5e-6;
  m.device.streamed_run_s = 1.375e-6;
  m.device.lone_read_s = 12.5e-6, m.device.lone_write_s = 37.5e-6;
  m.device.streamed_write_bytes_per_s = 2200e6;
  m.device.direct_mixed_bytes_per_s = 2150.5e6;
  return m;
}

TEST(MachineFile, SaysWhichRegimeTheDiskFiguresDescribe) {
  EXPECT_NE(
      tcec::calibrate::machine_text(with_device(0))
          .find("# tcec-calibrate on vm, 2026-11-25 10:17 UTC: P = 4 ranks measured at once.\n"
                "# Regimes (docs/out-of-core.md): disk_read, disk_write, disk_latency and page_fault describe the page "
                "cache (the device read\n"
                "# 0.00 MB of disk_read's 256.00 MB per rank), as programs whose tensors fit in memory see the disk.\n"
                "# Past the page cache (the device, out of core; 268.44 MB per rank in 4 MiB requests, all ranks at "
                "once): with O_DIRECT read 1300.50 MB/s, write 1400.25 MB/s (through fdatasync), both at once 2150.50 "
                "MB/s;\n"
                "# buffered writes through fdatasync 1100.00 MB/s, buffered reads of dropped pages 1250.00 MB/s (the "
                "device read 268.44 MB).\n"
                "machine calibrated {\n"),
      std::string::npos)
      << tcec::calibrate::machine_text(with_device(0));
  EXPECT_NE(tcec::calibrate::machine_text(with_device(200000000))
                .find("describe the device (the device read\n# 200.00 MB of disk_read's 256.00 MB per rank): the page "
                      "cache did not hold the file.\n"),
            std::string::npos);
  tcec::calibrate::Measured tmpfs = with_device(0);
  tmpfs.device.cold_read_device_bytes = 0, tmpfs.device.direct_read_bytes_per_s = -1;
  EXPECT_NE(tcec::calibrate::machine_text(tmpfs).find(
                "# Past the page cache (no device behind this file system: still the page cache; 268.44 MB per rank "
                "in 4 MiB requests, all ranks at once): O_DIRECT refused here;\n"),
            std::string::npos);
  auto r = tcec::frontend::parse_source("calibrated.machine", tcec::calibrate::machine_text(with_device(0)), {});
  EXPECT_TRUE(r.ok()) << r.diagnostics.render();
}

TEST(MachineFile, TheDeviceRegimeTakesTheDevicesFigures) {
  tcec::calibrate::Measured m = with_device(0);
  m.device_regime = true;
  m.direct_read_bytes_per_s = 1250e6, m.direct_overlap = 0.875;
  const std::string text = tcec::calibrate::machine_text(m);
  expect_lines(
      text,
      {"# Regimes (docs/out-of-core.md): --regime device: disk_read, disk_write, disk_latency, page_fault and\n"
       "# overlap describe the device past the page cache, as programs whose tensors do not fit see the disk.\n",
       "  disk_read 1300.50 MB/s;        # the device: O_DIRECT reads of 268.44 MB per rank in 4 MiB requests, all "
       "ranks at once; slowest rank\n",
       "  disk_write 1400.25 MB/s;       # the device: O_DIRECT writes of 4 MiB requests through fdatasync, all "
       "ranks at once, as programs hand results to it with write-behind while they read; slowest rank (buffered "
       "through one fdatasync 1100.00 MB/s, through the runtime's write-behind with nothing read meanwhile 2200.00 "
       "MB/s)\n",
       "  disk_mixed 2150.50 MB/s;       # the device reading and writing at once, reads and writes together: one "
       "thread reading the O_DIRECT file back while another writes as much into a new one through the runtime's "
       "write-behind and fdatasync, all ranks at once; slowest rank (an overlapped plan reads A and B on one I/O "
       "thread while it reads and writes C on another)\n",
       "  disk_latency 25.000 us;        # runs of 16 elements 16384 apart from the device, each a request of its "
       "own as a tile's rows in a wide tensor: time per run beyond its bytes, the mean of reading them (12.500 us) "
       "and writing them (37.500 us); slowest rank; runs 128 apart, read together, 1.375 us; a 4 KiB O_DIRECT read "
       "at a random offset 87.500 us\n",
       "  page_fault 0.000 us;           # streamed tensors are not mapped: no page faults\n",
       "  overlap 0.875;                 # O_DIRECT disk reads on an I/O thread beside the kernel, past the page "
       "cache: 1250.00 MB/s (",
       "  buffered_overlap 0.432;        # reads through the page cache on an I/O thread beside the kernel: the "
       "overlap of plans whose requests are shorter than direct_read_bytes (their reads stay buffered)\n"});
  auto r = tcec::frontend::parse_source("calibrated.machine", text, {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  EXPECT_EQ(r.program->machine->overlap, 0.875);
  EXPECT_EQ(r.program->machine->disk_mixed_bytes_per_s, 2150.5e6);
  EXPECT_EQ(r.program->machine->buffered_overlap, 0.432);
  EXPECT_EQ(tcec::calibrate::machine_json(m)["block_regime"], "device");
  EXPECT_EQ(tcec::calibrate::machine_json(with_device(0))["block_regime"], "page cache");
}

// Where the file system refuses O_DIRECT, the device regime's disk figures are the buffered ones:
// the cold read, and the write through fdatasync.
TEST(MachineFile, WithoutODirectTheDeviceRegimeTakesTheBufferedFigures) {
  tcec::calibrate::Measured m = with_device(0);
  m.device_regime = true;
  m.device.direct_read_bytes_per_s = -1, m.device.direct_write_bytes_per_s = -1, m.device.direct_request_s = -1;
  m.device.direct_mixed_bytes_per_s = -1;
  const std::string text = tcec::calibrate::machine_text(m);
  expect_lines(
      text,
      {"  disk_read 1250.00 MB/s;        # the device: buffered reads of dropped pages (O_DIRECT refused) of "
       "268.44 MB per rank in 4 MiB requests, all ranks at once; slowest rank\n",
       "  disk_write 1100.00 MB/s;       # the device: buffered 4 MiB writes through fdatasync (O_DIRECT refused); "
       "slowest rank (through the runtime's write-behind with nothing read meanwhile 2200.00 MB/s)\n",
       "  disk_latency 25.000 us;        # runs of 16 elements 16384 apart from the device, each a request of its "
       "own as a tile's rows in a wide tensor: time per run beyond its bytes, the mean of reading them (12.500 us) "
       "and writing them (37.500 us); slowest rank; runs 128 apart, read together, 1.375 us\n"});
  EXPECT_EQ(tcec::calibrate::machine_json(m)["figures"].count("device_write"), 0u);
  EXPECT_EQ(tcec::calibrate::machine_json(m)["figures"].count("device_mixed"), 0u);
  EXPECT_EQ(text.find("disk_mixed"), std::string::npos);
  EXPECT_EQ(text.find("buffered_overlap"), std::string::npos);  // no direct reads: one overlap
}

TEST(MachineFile, TheJsonGivesEachDiskFigureItsRegime) {
  const nlohmann::json j = tcec::calibrate::machine_json(with_device(0));
  EXPECT_EQ(j["processors"], 4);
  EXPECT_EQ(j["memory_bytes"], 12000000u);
  const nlohmann::json& f = j["figures"];
  EXPECT_EQ(f["disk_read"]["value"], 7497.41e6);
  EXPECT_EQ(f["disk_read"]["unit"], "B/s");
  EXPECT_EQ(f["disk_read"]["regime"], "page cache");
  EXPECT_EQ(f["disk_read"]["device_read_bytes"], 0);
  EXPECT_EQ(f["disk_write"]["regime"], "page cache");
  EXPECT_EQ(f["disk_latency"]["unit"], "s");
  EXPECT_EQ(f["device_read"]["value"], 1300.5e6);
  EXPECT_EQ(f["device_read"]["regime"], "device");
  EXPECT_EQ(f["device_write"]["value"], 1400.25e6);
  EXPECT_EQ(f["device_mixed"]["value"], 2150.5e6);
  EXPECT_EQ(f["device_mixed"]["regime"], "device");
  EXPECT_EQ(f["device_request"]["value"], 87.5e-6);
  EXPECT_EQ(f["device_lone_read"]["value"], 12.5e-6);
  EXPECT_EQ(f["device_lone_write"]["value"], 37.5e-6);
  EXPECT_EQ(f["device_lone_write"]["regime"], "device");
  EXPECT_EQ(f["device_streamed_write"]["value"], 2200e6);
  EXPECT_EQ(f["device_request"]["unit"], "s");
  EXPECT_EQ(f["device_streamed_run"]["value"], 1.375e-6);
  EXPECT_EQ(f["device_streamed_run"]["regime"], "device");
  EXPECT_EQ(f["device_synced_write"]["regime"], "device");
  EXPECT_EQ(f["device_cold_read"]["device_read_bytes"], 268435456u);
  EXPECT_EQ(f["flops"]["unit"], "FLOP/s");
  EXPECT_FALSE(f["flops"].contains("regime"));
  EXPECT_EQ(tcec::calibrate::machine_json(with_device(200000000))["figures"]["disk_read"]["regime"], "device");
  EXPECT_FALSE(tcec::calibrate::machine_json(sample())["figures"].contains("device_read"));  // not measured
}

TEST(MachineFile, TheParserReadsItBack) {
  auto r = tcec::frontend::parse_source("calibrated.machine", tcec::calibrate::machine_text(sample()), {});
  ASSERT_TRUE(r.ok()) << r.diagnostics.render();
  const auto& m = *r.program->machine;
  EXPECT_EQ(m.processors, 4);
  EXPECT_EQ(m.memory_bytes, 12000000u);
  EXPECT_DOUBLE_EQ(m.network_bytes_per_s, 1209.57e6);
  EXPECT_DOUBLE_EQ(m.disk_read_bytes_per_s, 7497.41e6);
  EXPECT_DOUBLE_EQ(m.disk_write_bytes_per_s, 168.34e6);
  EXPECT_DOUBLE_EQ(m.disk_latency_s, 2.245e-6);
  EXPECT_DOUBLE_EQ(m.page_fault_s, 3.21e-6);
  EXPECT_DOUBLE_EQ(m.replication_factor, 1.509);
  EXPECT_DOUBLE_EQ(m.reduction_factor, 4.626);
  EXPECT_DOUBLE_EQ(m.flops_per_s, 23.769e9);
  EXPECT_DOUBLE_EQ(m.memory_bytes_per_s, 13854.26e6);
  EXPECT_DOUBLE_EQ(m.overlap, 0.432);
}

}  // namespace
