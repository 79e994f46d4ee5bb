#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "scenario/config_problem.h"
#include "scenario/runner.h"
#include "train/data/sampler.h"
#include "train/data/synthetic.h"

// The data a trained run is built from (runner.h, load_run_data): the data sets shared between
// runs, and the validation split carved from the training set.
namespace commlab {

namespace {

// Fashion-MNIST takes about 0.4 s to inflate and 190 MB to hold, and every run of a scenario (and
// every run `validate` checks, and every row of `reproduce`) asks for the same few copies. The
// data is never written after loading, so runs share one copy: the latest one is kept, older ones
// live while a run holds them. Loading happens outside the lock; two threads that miss at once
// both load and the second keeps its own copy, which costs time, never correctness.
std::shared_ptr<const TrainTest> shared_fashion_mnist(int max_train) {
  static std::mutex mutex;
  static std::map<int, std::weak_ptr<const TrainTest>> loaded;
  static std::shared_ptr<const TrainTest> latest;
  {
    std::lock_guard lock(mutex);
    if (auto it = loaded.find(max_train); it != loaded.end())
      if (auto data = it->second.lock()) return latest = data;
  }
  Result<TrainTest> r = load_fashion_mnist(kFashionMnistDir, max_train, 0);  // eval: eval_subset
  if (!r) throw ConfigError("workload.dataset", r.error());
  auto data = std::make_shared<const TrainTest>(std::move(r).value());
  std::lock_guard lock(mutex);
  loaded[max_train] = data;
  return latest = data;
}

}  // namespace

namespace {

// The training set without its validation rows and, as the evaluation set, the validation rows
// (a tuning replica) or the test set. Every run with the same data and validation_rows shares one
// copy per kind, as shared_fashion_mnist shares the loaded set.
std::shared_ptr<const TrainTest> split_validation(std::shared_ptr<const TrainTest> data,
                                                  const RunConfig& c) {
  using Key = std::tuple<const TrainTest*, int, bool>;
  static std::mutex mutex;
  static std::map<Key, std::pair<std::shared_ptr<const TrainTest>, std::weak_ptr<const TrainTest>>>
      made;  // the source is held so that its address is not reused while the key lives
  const Key key{data.get(), c.training.validation_rows, c.training.evaluate_on_validation};
  {
    std::lock_guard lock(mutex);
    if (auto it = made.find(key); it != made.end())
      if (auto split = it->second.second.lock()) return split;
  }
  ValidationSplit rows;
  try {
    rows = validation_split(data->train.rows(), c.training.validation_rows);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("training.validation_rows", e.what());
  }
  TrainTest out;
  out.train = select_rows(data->train, rows.train);
  out.test =
      c.training.evaluate_on_validation ? select_rows(data->train, rows.validation) : data->test;
  auto split = std::make_shared<const TrainTest>(std::move(out));
  std::lock_guard lock(mutex);
  for (auto it = made.begin(); it != made.end();)  // forget the splits no run holds any more
    it = it->second.second.expired() ? made.erase(it) : std::next(it);
  made[key] = {data, split};
  return split;
}

std::shared_ptr<const TrainTest> load_unsplit_data(const RunConfig& c) {
  const std::string& d = c.workload.dataset;
  if (d == "fashion-mnist") return shared_fashion_mnist(c.workload.max_train);
  if (d.rfind("text:", 0) == 0) {
    Result<TrainTest> r = load_char_text(d.substr(5), 32, 0.1);
    if (!r) throw ConfigError("workload.dataset", r.error());
    return std::make_shared<const TrainTest>(std::move(r).value());
  }
  SyntheticConfig s;
  s.kind = parse_synthetic_kind(d);
  s.seed = c.seed;
  if (c.workload.max_train > 0) s.train_rows = c.workload.max_train;
  return std::make_shared<const TrainTest>(make_synthetic(s));
}

}  // namespace

std::shared_ptr<const TrainTest> load_run_data(const RunConfig& c) {
  std::shared_ptr<const TrainTest> data = load_unsplit_data(c);
  if (c.training.validation_rows > 0) return split_validation(std::move(data), c);
  if (c.training.evaluate_on_validation)
    throw ConfigError("training.validation_rows",
                      "evaluating on the validation rows needs training.validation_rows > 0");
  return data;
}

}  // namespace commlab
