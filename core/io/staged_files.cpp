#include "io/staged_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace commlab {

namespace {

[[noreturn]] void fail(const std::string& path, int error) {
  throw std::runtime_error("cannot write " + path + ": " + std::strerror(error));
}

// A new file beside path that did not exist before (O_EXCL: never an earlier file or a link).
// Names differ by process and by call, so concurrent writers never share a temporary.
int create_temporary(const std::string& path, std::string* temporary) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    *temporary = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    const int fd =
        ::open(temporary->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// Every byte written, and its writeback started without waiting for it (so the files of a set
// go to disk together, and commit's fsync of each mostly finds it done); the errno of the first
// failure, or 0.
int write_all(int fd, std::string_view bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<size_t>(n);
  }
#ifdef SYNC_FILE_RANGE_WRITE
  ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);  // a hint: fsync below is what counts
#endif
  return 0;
}

// The file at path on disk (fsync applies to the file, whichever descriptor names it); the errno
// of the failure, or 0. A directory is opened read-only too, so its entries (renames) sync.
int sync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return errno;
  int error = ::fsync(fd) != 0 ? errno : 0;
  if (::close(fd) != 0 && error == 0) error = errno;
  return error;
}

std::string parent_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

StagedFiles::~StagedFiles() {
  discard();
}

void StagedFiles::discard() noexcept {
  for (const Staged& s : staged_) std::remove(s.temporary.c_str());
  staged_.clear();
}

void StagedFiles::add(const std::string& path, std::string_view bytes) {
  std::string temporary;
  const int fd = create_temporary(path, &temporary);
  if (fd < 0) {
    const int error = errno;
    discard();
    fail(path, error);
  }
  staged_.push_back({path, temporary});
  int error = write_all(fd, bytes);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    discard();
    fail(path, error);
  }
}

void StagedFiles::commit() {
  // Every file on disk before any is renamed: a failure (ENOSPC of delayed allocation, EIO)
  // leaves the earlier files in place. The writes were all started by add, so these fsyncs wait
  // for I/O already under way instead of one file's at a time.
  for (const Staged& s : staged_) {
    if (const int error = sync_path(s.temporary); error != 0) {
      const std::string path = s.path;
      discard();
      fail(path, error);
    }
  }
  for (size_t i = 0; i < staged_.size(); ++i) {
    if (std::rename(staged_[i].temporary.c_str(), staged_[i].path.c_str()) != 0) {
      const int error = errno;
      const std::string path = staged_[i].path;
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(i));
      discard();
      fail(path, error);
    }
  }
  // The renames on disk: each folder of the set once (best effort: the files are in place).
  std::vector<std::string> folders;
  for (const Staged& s : staged_) {
    std::string folder = parent_of(s.path);
    if (std::find(folders.begin(), folders.end(), folder) == folders.end())
      folders.push_back(std::move(folder));
  }
  staged_.clear();
  for (const std::string& folder : folders) sync_path(folder);
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  StagedFiles file;
  file.add(path, bytes);
  file.commit();
}

}  // namespace commlab
