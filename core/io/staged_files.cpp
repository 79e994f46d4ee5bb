#include "io/staged_files.h"

#include <fcntl.h>
#include <unistd.h>

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

// Every byte written and on disk; the errno of the first failure, or 0.
int write_and_sync(int fd, std::string_view bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<size_t>(n);
  }
  return ::fsync(fd) != 0 ? errno : 0;
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
  int error = write_and_sync(fd, bytes);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    discard();
    fail(path, error);
  }
}

void StagedFiles::commit() {
  for (size_t i = 0; i < staged_.size(); ++i) {
    if (std::rename(staged_[i].temporary.c_str(), staged_[i].path.c_str()) != 0) {
      const int error = errno;
      const std::string path = staged_[i].path;
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(i));
      discard();
      fail(path, error);
    }
  }
  staged_.clear();
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  StagedFiles file;
  file.add(path, bytes);
  file.commit();
}

}  // namespace commlab
