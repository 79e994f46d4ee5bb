#include "cli/util/results_dir_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "cli/command.h"
#include "scenario/run/results_io.h"

namespace commlab::cli {

namespace fs = std::filesystem;

namespace {

void sync_path(const fs::path& p, bool directory) {
  const int fd = ::open(p.c_str(), (directory ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot sync " + p.string() + ": " + std::strerror(error));
  }
  ::close(fd);
}

void rename_or_throw(const fs::path& from, const fs::path& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw std::runtime_error("cannot rename " + from.string() + " to " + to.string() + ": " +
                             std::strerror(errno));
}

// A folder commlab-cli may replace: empty, or holding what run or reproduce writes.
bool replaceable(const fs::path& dir) {
  if (fs::is_empty(dir)) return true;
  for (const char* f : {"summary.json", "REPORT.md", kIncompleteMarker})
    if (fs::exists(dir / f)) return true;
  return false;
}

// A sibling commlab-cli may remove or replace (DIR.incomplete, DIR.prev): absent, an empty folder,
// or a folder holding `marker`, which only commlab-cli writes. A file, a symbolic link or a folder
// without the marker is the user's and is never touched.
bool owned_sibling(const fs::path& sibling, const char* marker) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(sibling, ec);
  if (!fs::exists(st)) return true;
  if (!fs::is_directory(st)) return false;
  return fs::is_empty(sibling, ec) || fs::exists(fs::symlink_status(sibling / marker, ec));
}

std::string not_owned(const fs::path& sibling, const char* marker) {
  return sibling.string() + " exists and was not written by commlab-cli (no " + marker +
         " in it); move or remove it, or choose another folder";
}

// Holds DIR.lock with flock (released by the kernel when the process dies, so a killed run's lock
// is reclaimed by the next) and writes this pid into it. Two runs with the same --out started
// together would delete each other's live DIR.incomplete: the second refuses.
int take_lock(const std::string& final_path) {
  const std::string lock = final_path + ".lock";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot create the lock " + lock + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    const std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "unknown";
    throw InvalidInput("--out: " + final_path + " is being written by commlab-cli pid " +
                       pid.substr(0, pid.find_first_not_of("0123456789")) + " (lock " + lock +
                       "); wait for it to end or choose another folder");
  }
  const std::string pid = std::to_string(getpid());
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    const int error = errno;
    ::close(fd);
    throw std::runtime_error("cannot write the lock " + lock + ": " + std::strerror(error));
  }
  return fd;
}

}  // namespace

ResultsDir::ResultsDir(const std::string& dir, const std::string& writer) {
  fs::path p = fs::path(dir).lexically_normal();
  if (p.has_filename() == false && p.has_parent_path()) p = p.parent_path();  // "out/"
  const std::string name = p.filename().string();
  if (name.empty() || name == "." || name == "..")
    throw InvalidInput("--out: expected a folder name, got '" + dir + "'");
  final_ = p.string();
  staging_ = final_ + ".incomplete";
  std::error_code ec;
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p))
      throw InvalidInput("--out: " + final_ + " exists and is not a folder");
    if (!replaceable(p))
      throw InvalidInput("--out: " + final_ +
                         " is not a results folder (no summary.json, REPORT.md or INCOMPLETE in "
                         "it); give a new or empty folder");
  }
  // DIR.incomplete is removed below and DIR.prev replaced at commit (when DIR exists): both only
  // when commlab-cli wrote them.
  if (!owned_sibling(staging_, kIncompleteMarker))
    throw InvalidInput("--out: " + not_owned(staging_, kIncompleteMarker));
  const std::string prev = final_ + ".prev";
  if (fs::exists(p, ec) && !owned_sibling(prev, kPreviousMarker))
    throw InvalidInput("--out: " + not_owned(prev, kPreviousMarker));
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  lock_fd_ = take_lock(final_);  // before touching DIR.incomplete, which a live run may own
  try {
    fs::remove_all(staging_);  // a killed run's leftovers (its marker is checked above)
    fs::create_directories(staging_);
    write_file(staging_ + "/" + kIncompleteMarker,
               "commlab-cli " + writer + " (pid " + std::to_string(getpid()) +
                   ") is writing this folder; it is renamed to " + p.filename().string() +
                   " when complete. A folder with this file is not a complete result.\n");
  } catch (...) {  // no destructor runs for a half-built object: release the lock here
    ::close(lock_fd_);
    throw;
  }
}

ResultsDir::~ResultsDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock (the file stays: see take_lock)
}

void ResultsDir::commit(const std::string& incomplete_reason) {
  const fs::path staging(staging_), target(final_);
  if (!incomplete_reason.empty())
    write_file((staging / kIncompleteMarker).string(), incomplete_reason + "\n");
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(staging))
    sync_path(e.path(), e.is_directory());
  sync_path(staging, true);
  if (fs::exists(target)) {
    const fs::path prev = final_ + ".prev";
    if (!owned_sibling(prev, kPreviousMarker)) {
      committed_ = true;  // keep the finished results where they are
      throw std::runtime_error(not_owned(prev, kPreviousMarker) + "; the new results stay in " +
                               staging_);
    }
    // Marked before the rename, so a DIR.prev never exists without its marker.
    write_file((target / kPreviousMarker).string(),
               "commlab-cli moved the previous " + target.filename().string() +
                   " here; the next run to it replaces this folder.\n");
    fs::remove_all(prev);
    rename_or_throw(target, prev);
  }
  rename_or_throw(staging, target);
  committed_ = true;
  // A complete result loses its marker last: a crash before leaves DIR marked INCOMPLETE (a
  // complete result shown as incomplete), never a DIR.incomplete without its marker.
  if (incomplete_reason.empty()) {
    fs::remove(target / kIncompleteMarker);
    sync_path(target, true);
  }
  sync_path(target.has_parent_path() ? target.parent_path() : fs::path("."), true);
}

}  // namespace commlab::cli
