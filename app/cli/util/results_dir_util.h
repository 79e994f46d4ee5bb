#pragma once
// A results folder that is never half old, half new. Everything is written into a
// fresh sibling DIR.incomplete that holds an INCOMPLETE marker; commit() fsyncs every file and
// folder in it and renames it into place, the previous DIR becoming DIR.prev. So a run killed at
// any point (SIGKILL, a crash, a full disk) leaves DIR as it was, and at most a DIR.incomplete that
// says so; a run stopped by a signal it handles (SIGINT, SIGTERM) commits what finished and keeps
// the marker with the reason. docs/cli.md, "Results folders".
#include <string>

namespace commlab::cli {

class ResultsDir {
 public:
  // Refuses (InvalidInput) a DIR that is not a folder name, or that exists and is not a folder
  // commlab-cli wrote (no summary.json, REPORT.md or INCOMPLETE in it, and not empty), and a
  // DIR.incomplete without INCOMPLETE or (when DIR exists) a DIR.prev without PREVIOUS: those are
  // the user's, never removed. Removes a DIR.incomplete a killed run left behind (it holds
  // INCOMPLETE) and starts a fresh one. Takes DIR.lock first: another
  // live commlab-cli writing DIR is InvalidInput naming its pid. `writer` names the command in
  // the marker ("run", "reproduce").
  ResultsDir(const std::string& dir, const std::string& writer);
  // Not committed (an error, a failed write): the staging folder goes, DIR stays as it was.
  ~ResultsDir();
  ResultsDir(const ResultsDir&) = delete;
  ResultsDir& operator=(const ResultsDir&) = delete;

  const std::string& path() const { return staging_; }  // where to write
  const std::string& final_path() const { return final_; }
  // fsync, DIR -> DIR.prev (an older DIR.prev is removed; the new one gets PREVIOUS),
  // DIR.incomplete -> DIR. A DIR.prev without PREVIOUS that appeared during the run is kept, and
  // so is DIR.incomplete (std::runtime_error naming both). A non-empty
  // `incomplete_reason` keeps DIR/INCOMPLETE with that text (a stopped run). Throws
  // std::runtime_error naming the path if a file cannot be synced or renamed.
  void commit(const std::string& incomplete_reason = "");

 private:
  std::string final_, staging_;
  bool committed_ = false;
  int lock_fd_ = -1;  // flock on DIR.lock: one writer per folder
};

// The marker's file name inside a folder that is not a complete result.
inline constexpr const char* kIncompleteMarker = "INCOMPLETE";
// The marker commit() writes into DIR.prev: only a DIR.prev holding it (or empty) is replaced.
inline constexpr const char* kPreviousMarker = "PREVIOUS";

}  // namespace commlab::cli
