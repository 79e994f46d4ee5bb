#include "exec/mpi_runtime.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#if COMMLAB_HAVE_MPI
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "exec/mpi_detail.h"
#endif

namespace commlab::exec {

bool mpi_built() {
  return COMMLAB_HAVE_MPI != 0;
}

bool launched_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

std::string launch_hint(const std::string& subcommand) {
  if (!mpi_built())
    return "--exec mpi is not available: commlab-cli was built without Open MPI (install "
           "libopenmpi-dev and openmpi-bin, then configure again)";
  return "--exec mpi runs one process per rank: launch it as `mpirun -np 4 commlab-cli " +
         subcommand +
         " --exec mpi ...` (add --oversubscribe for more ranks than cores; see "
         "docs/validation.md)";
}

uint64_t hash_inputs(std::span<const std::string> args, std::span<const std::string> files) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto feed = [&h](const char* data, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 0x100000001b3ull;
  };
  const char sep = '\0';
  for (const std::string& a : args) {
    feed(a.data(), a.size());
    feed(&sep, 1);
  }
  for (const std::string& path : files) {
    feed(path.data(), path.size());
    feed(&sep, 1);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      feed("missing", 7);
      continue;
    }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    feed(bytes.data(), bytes.size());
  }
  return h;
}

std::vector<std::string> process_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  if (!args.empty()) args.erase(args.begin());
  return args;
}

#if COMMLAB_HAVE_MPI

namespace {

int world_rank() {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// MPI errors (a peer's death seen by the transport, a bad argument) become one line and an
// aborted job: MPI's default would print a multi-line banner or, with ERRORS_RETURN, hang others.
void on_mpi_error(MPI_Comm*, int* code, ...) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(*code, text, &len);
  std::fprintf(stderr,
               "commlab-cli: rank %d: MPI error: %.*s (a peer died or the network failed); "
               "aborting the job\n",
               world_rank(), len, text);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, kMpiFailureExit);
  std::_Exit(kMpiFailureExit);
}

// The host's cores, not this process's affinity mask: mpirun binds each rank to a core.
int usable_cores() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace

MpiRuntime::MpiRuntime(RuntimeOptions options) : options_(options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) throw std::logic_error("MpiRuntime: MPI is already initialised in this process");
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw MpiUnavailable("MPI_Init_thread failed");
  MPI_Errhandler handler;
  MPI_Comm_create_errhandler(on_mpi_error, &handler);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
  MPI_Errhandler_free(&handler);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);  // inherits the handler; keeps our traffic apart
  world_ = dup;
  MPI_Comm_rank(dup, &rank_);
  MPI_Comm_size(dup, &size_);

  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  host_name_.assign(name, len);
  MPI_Comm local;
  MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  int local_size = 1, leader = rank_;
  MPI_Comm_size(local, &local_size);
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, local);
  MPI_Comm_free(&local);
  oversubscribed_ = local_size > usable_cores();
  std::vector<int> leaders(size_);
  MPI_Request req;
  MPI_Iallgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, dup, &req);
  wait_one(*this, req, "finding which ranks share a host");
  std::vector<int> sorted = leaders;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  hosts_ = static_cast<int>(sorted.size());
  host_of_.resize(size_);
  for (int r = 0; r < size_; ++r)
    host_of_[r] = static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), leaders[r]) -
                                   sorted.begin());

  if (const char* fault = std::getenv("COMMLAB_MPI_FAULT")) {
    char mode[16] = {};
    unsigned long long at = 1;
    if (std::sscanf(fault, "%d:%15[a-z]:%llu", &fault_rank_, mode, &at) < 2)
      abort("COMMLAB_MPI_FAULT: expected RANK:exit|kill|hang[:N], got '" + std::string(fault) + "'",
            2);
    std::string m = mode;
    fault_mode_ = m == "exit" ? 1 : m == "kill" ? 2 : m == "hang" ? 3 : 0;
    if (fault_mode_ == 0) abort("COMMLAB_MPI_FAULT: mode must be exit, kill or hang", 2);
    fault_at_ = at;
  }
}

MpiRuntime::~MpiRuntime() {
  MPI_Comm dup = world(*this);
  MPI_Comm_free(&dup);
  MPI_Finalize();
}

void MpiRuntime::abort(const std::string& message, int code) const {
  std::fprintf(stderr, "commlab-cli: rank %d: %s\n", rank_, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

void MpiRuntime::fault_point() const {
  if (fault_mode_ == 0 || rank_ != fault_rank_ || ++fault_calls_ != fault_at_) return;
  std::fprintf(stderr, "commlab-cli: rank %d: COMMLAB_MPI_FAULT: %s now (test fault)\n", rank_,
               fault_mode_ == 1   ? "exiting"
               : fault_mode_ == 2 ? "killed"
                                  : "hanging");
  std::fflush(stderr);
  if (fault_mode_ == 1) _exit(3);
  if (fault_mode_ == 2) raise(SIGKILL);
  for (;;) pause();
}

std::string MpiRuntime::check_same_inputs(uint64_t hash) const {
  std::vector<uint64_t> all(size_);
  MPI_Request req;
  MPI_Iallgather(&hash, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, world(*this), &req);
  wait_one(*this, req, "comparing the ranks' arguments");
  std::string differ;
  for (int r = 1; r < size_; ++r)
    if (all[r] != all[0]) differ += (differ.empty() ? "" : ", ") + std::to_string(r);
  if (differ.empty()) return "";
  return "rank(s) " + differ +
         " got other arguments or input files than rank 0; every rank "
         "must run the same command line on the same files";
}

void MpiRuntime::report_everywhere(const std::string& message) const {
  std::fprintf(stderr, "commlab-cli: %s\n", message.c_str());
  std::fflush(stderr);
  barrier();
}

void MpiRuntime::barrier() const {
  MPI_Request req;
  MPI_Ibarrier(world(*this), &req);
  wait_one(*this, req, "waiting at a barrier");
}

std::vector<double> MpiRuntime::gather(double value) const {
  std::vector<double> all(root() ? size_ : 0);
  MPI_Request req;
  MPI_Igather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, world(*this), &req);
  wait_one(*this, req, "gathering results on rank 0");
  return all;
}

std::vector<std::string> MpiRuntime::gather_strings(const std::string& value) const {
  int len = static_cast<int>(value.size());
  std::vector<int> lens(size_), displs(size_);
  MPI_Request req;
  MPI_Igather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, world(*this), &req);
  wait_one(*this, req, "gathering result sizes on rank 0");
  int total = 0;
  for (int r = 0; r < size_ && root(); ++r) {
    displs[r] = total;
    total += lens[r];
  }
  std::string all(total, '\0');
  MPI_Igatherv(value.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0,
               world(*this), &req);
  wait_one(*this, req, "gathering results on rank 0");
  std::vector<std::string> out;
  for (int r = 0; r < size_ && root(); ++r) out.push_back(all.substr(displs[r], lens[r]));
  return out;
}

namespace {
double reduce_all(const MpiRuntime& rt, double value, MPI_Op op) {
  double out = 0;
  MPI_Request req;
  MPI_Iallreduce(&value, &out, 1, MPI_DOUBLE, op, world(rt), &req);
  wait_one(rt, req, "reducing a result over the ranks");
  return out;
}
}  // namespace

double MpiRuntime::max(double value) const {
  return reduce_all(*this, value, MPI_MAX);
}
double MpiRuntime::min(double value) const {
  return reduce_all(*this, value, MPI_MIN);
}
double MpiRuntime::sum(double value) const {
  return reduce_all(*this, value, MPI_SUM);
}

std::string MpiRuntime::broadcast(const std::string& value, int from) const {
  unsigned long long len = value.size();
  MPI_Request req;
  MPI_Ibcast(&len, 1, MPI_UNSIGNED_LONG_LONG, from, world(*this), &req);
  wait_one(*this, req, "broadcasting from rank " + std::to_string(from));
  std::string out = rank_ == from ? value : std::string(len, '\0');
  MPI_Ibcast(out.data(), static_cast<int>(len), MPI_CHAR, from, world(*this), &req);
  wait_one(*this, req, "broadcasting from rank " + std::to_string(from));
  return out;
}

double MpiRuntime::broadcast(double value, int from) const {
  MPI_Request req;
  MPI_Ibcast(&value, 1, MPI_DOUBLE, from, world(*this), &req);
  wait_one(*this, req, "broadcasting from rank " + std::to_string(from));
  return value;
}

namespace {
using Clock = std::chrono::steady_clock;

[[noreturn]] void timed_out(const MpiRuntime& rt, const std::string& what) {
  std::ostringstream msg;
  msg << "no answer within " << rt.timeout_s() << " s while " << what
      << " (a peer died or stopped answering); aborting the job";
  rt.abort(msg.str());
}
}  // namespace

void wait_all(const MpiRuntime& rt, std::span<MPI_Request> requests, const std::string& what) {
  const auto start = Clock::now();
  const auto limit = std::chrono::duration<double>(rt.timeout_s());
  for (uint64_t polls = 0;; ++polls) {
    int done = 0;
    MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return;
    if ((polls & 63) == 63 && Clock::now() - start > limit) timed_out(rt, what);
    if (rt.oversubscribed()) sched_yield();
  }
}

MPI_Message wait_message(const MpiRuntime& rt, MPI_Comm comm, int source, int tag,
                         const std::string& what, int* bytes) {
  const auto start = Clock::now();
  const auto limit = std::chrono::duration<double>(rt.timeout_s());
  for (uint64_t polls = 0;; ++polls) {
    int found = 0;
    MPI_Message message;
    MPI_Status status;
    MPI_Improbe(source, tag, comm, &found, &message, &status);
    if (found) {
      MPI_Get_count(&status, MPI_BYTE, bytes);
      return message;
    }
    if ((polls & 63) == 63 && Clock::now() - start > limit) timed_out(rt, what);
    if (rt.oversubscribed()) sched_yield();
  }
}

#else  // built without MPI: the API exists, the runtime refuses to start

MpiRuntime::MpiRuntime(RuntimeOptions options) : options_(options) {
  throw MpiUnavailable(launch_hint("SUBCOMMAND"));
}
MpiRuntime::~MpiRuntime() = default;
void MpiRuntime::abort(const std::string& message, int code) const {
  std::fprintf(stderr, "commlab-cli: %s\n", message.c_str());
  std::_Exit(code);
}
void MpiRuntime::fault_point() const {}
std::string MpiRuntime::check_same_inputs(uint64_t) const {
  return "";
}
void MpiRuntime::barrier() const {}
void MpiRuntime::report_everywhere(const std::string& message) const {
  std::fprintf(stderr, "commlab-cli: %s\n", message.c_str());
}
std::vector<double> MpiRuntime::gather(double value) const {
  return {value};
}
std::vector<std::string> MpiRuntime::gather_strings(const std::string& value) const {
  return {value};
}
double MpiRuntime::max(double value) const {
  return value;
}
double MpiRuntime::min(double value) const {
  return value;
}
double MpiRuntime::sum(double value) const {
  return value;
}
std::string MpiRuntime::broadcast(const std::string& value, int) const {
  return value;
}
double MpiRuntime::broadcast(double value, int) const {
  return value;
}

#endif

}  // namespace commlab::exec
