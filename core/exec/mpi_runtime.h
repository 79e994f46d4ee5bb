#pragma once
// The MPI runtime every real-process feature runs on (`--exec mpi`): init/finalize, rank and
// size, which ranks share a host, an error handler and a watchdog that turn MPI failures and
// silent peers into one clear message and an aborted job (never a hang), the check that every
// rank got the same arguments and files, and helpers that gather results on rank 0.
//
// This header does not include mpi.h, so commands and tests can use it whether or not Open MPI is
// present; core/exec/mpi_detail.h gives the other core/exec files the raw communicator. Built
// without MPI (COMMLAB_HAVE_MPI == 0), MpiRuntime's constructor throws MpiUnavailable.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace commlab::exec {

// True when this build has Open MPI (COMMLAB_HAVE_MPI).
bool mpi_built();
// True when this process was started by mpirun/mpiexec (Open MPI, PMIx or PMI environment).
bool launched_by_mpirun();
// The one-line explanation printed when `--exec mpi` runs without mpirun or without MPI, e.g.
// "--exec mpi runs one process per rank: launch it as `mpirun -np 4 commlab-cli collective ...`".
std::string launch_hint(const std::string& subcommand);

struct MpiUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit code of a job ended by the watchdog or an MPI error (docs/cli.md: 1, the run failed).
inline constexpr int kMpiFailureExit = 1;

struct RuntimeOptions {
  // A wait for peers (point-to-point or collective) that takes longer than this ends the job:
  // a peer that died or stopped answering. Generous by default: 8 processes on 2 cores with a
  // codec on 64 MiB take well under a second per step.
  double timeout_s = 60;
};

class MpiRuntime {
 public:
  // MPI_Init_thread (MPI_THREAD_FUNNELED: OpenMP may run inside a rank, MPI only on its main
  // thread) and the error handler on MPI_COMM_WORLD. One per process, for the whole run.
  explicit MpiRuntime(RuntimeOptions options = {});
  ~MpiRuntime();  // MPI_Finalize
  MpiRuntime(const MpiRuntime&) = delete;
  MpiRuntime& operator=(const MpiRuntime&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  // Hosts (MPI_Comm_split_type SHARED): host_of(r) numbers hosts 0.. in order of their lowest
  // rank; ranks on one host share memory.
  int host_of(int rank) const { return host_of_.at(rank); }
  int hosts() const { return hosts_; }
  const std::string& host_name() const { return host_name_; }
  // More processes than cores on this host (then waits yield the core instead of spinning).
  bool oversubscribed() const { return oversubscribed_; }
  double timeout_s() const { return options_.timeout_s; }
  void set_timeout_s(double seconds) { options_.timeout_s = seconds; }

  // Every rank passes the hash of its inputs (hash_inputs below); returns "" when all agree, else
  // the same message on every rank, naming the ranks that differ from rank 0.
  std::string check_same_inputs(uint64_t hash) const;

  void barrier() const;
  // Prints "commlab-cli: MESSAGE" on this rank's stderr, then waits until every rank has printed
  // (a barrier), so an error every rank finds (check_same_inputs) is on every rank's stderr before
  // any rank exits and mpirun tears the others down. Callers then exit without printing again.
  void report_everywhere(const std::string& message) const;
  // On rank 0: one value per rank (index = rank); elsewhere empty.
  std::vector<double> gather(double value) const;
  std::vector<std::string> gather_strings(const std::string& value) const;
  double max(double value) const;  // over all ranks, on every rank
  double min(double value) const;
  double sum(double value) const;
  // Rank `from`'s value on every rank.
  std::string broadcast(const std::string& value, int from = 0) const;
  double broadcast(double value, int from = 0) const;

  // Ends the whole job from this rank: "commlab-cli: rank R: MESSAGE" on stderr, then MPI_Abort.
  [[noreturn]] void abort(const std::string& message, int code = kMpiFailureExit) const;

  // Test-only fault injection, read from COMMLAB_MPI_FAULT="RANK:MODE:N" (MODE exit or hang): the
  // N-th call of fault_point() on rank RANK exits the process without MPI_Finalize (exit) or
  // stops answering (hang), to show that the job still ends with a clear message.
  void fault_point() const;

  void* world_handle() const { return world_; }  // MPI_Comm, for core/exec/mpi_detail.h

 private:
  RuntimeOptions options_;
  int rank_ = 0;
  int size_ = 1;
  int hosts_ = 1;
  std::vector<int> host_of_;
  std::string host_name_;
  bool oversubscribed_ = false;
  void* world_ = nullptr;  // a duplicate of MPI_COMM_WORLD with our error handler
  int fault_rank_ = -1;
  int fault_mode_ = 0;  // 1 exit, 2 hang
  uint64_t fault_at_ = 0;
  mutable uint64_t fault_calls_ = 0;
};

// FNV-1a of the arguments and of each file's bytes (a missing file hashes its name and
// "missing", so every rank that misses it agrees and the command's own error follows).
uint64_t hash_inputs(std::span<const std::string> args, std::span<const std::string> files);
// This process's command line (from /proc/self/cmdline), argv[0] dropped: mpirun gives every rank
// the same one, so it is what the input check hashes.
std::vector<std::string> process_arguments();

}  // namespace commlab::exec
