#pragma once
// Writing files so that a failure never leaves a half-written one in place: every file
// goes to a fresh temporary name in its own folder first (opened O_CREAT|O_EXCL|O_NOFOLLOW, so a
// symlink planted there is never followed) and is written; commit fsyncs every one (their
// writeback started as each was added, so the set goes to disk together, not one file's I/O
// after another's), and only when every file of the set is on disk are they renamed into place,
// then each folder is fsynced once so the renames are durable too (rename replaces a symlink at the
// final name, it does not write through it). A failed write removes the temporaries and leaves the
// earlier files byte-identical. Errors are one line: "cannot write PATH: reason".
#include <string>
#include <string_view>
#include <vector>

namespace commlab {

class StagedFiles {
 public:
  StagedFiles() = default;
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  // Removes the temporaries of a set that was not committed (a write failed, or an exception
  // passed between add and commit).
  ~StagedFiles();

  // Writes bytes to a temporary beside path (fsynced by commit). Throws std::runtime_error naming
  // path (not the temporary) and the reason; the temporaries written so far are removed then.
  void add(const std::string& path, std::string_view bytes);

  // Fsyncs every temporary, then renames each to its path in the order they were added, then
  // fsyncs their folders. Throws std::runtime_error naming the path that could not be synced or
  // renamed (the temporaries left are removed).
  void commit();

 private:
  struct Staged {
    std::string path;
    std::string temporary;
  };
  void discard() noexcept;
  std::vector<Staged> staged_;
};

// One file, atomically: StagedFiles with a single member.
void write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace commlab
