#pragma once
// Proxy timing (workload.time_as): the data plane trains the run's small model on real data while
// each iteration is timed as a catalog model (workload/catalog/proxy_model.h) would be on the
// cluster, so time-to-accuracy is measured in the regime the papers ran (VGG-19 on 8 GPUs,
// BERT-large, Llama-3.2 1B) with the convergence of a model that trains here:
// - compute: the proxy's layers at the run's per-rank batch (training.global_batch / ranks
//   samples), forward FLOPs and 2x for backward, on the cluster's GPU at its MFU (or its HBM
//   bandwidth, whichever is slower), as the trainer charges its own layers;
// - communication: the proxy's gradients in DDP buckets of workload.bucket_mb MiB (FP32
//   gradients; layers filled last to first, a layer never split), each reduced by the run's own
//   plan for that bucket and iteration (algorithm, SkipReduce's skips and rotation) and timed on
//   the run's network, every transfer charged the wire format's bytes per element times the data
//   plane's measured wire ratio of this iteration (a codec, trimming, top-k or PowerSGD shrink
//   the proxy's bytes as they shrank the trained model's);
// - codec: the data plane's codec seconds per gradient byte, times the proxy's bytes;
// - overlap: DDP's (compute_model.h overlap_step), buckets launched as their last layer's backward
//   ends.
// Every other field of the sample (loss, accuracy, bytes, ratios) is the data plane's.
#include <vector>

#include "network/backend.h"
#include "scenario/run/collective_reducer.h"
#include "scenario/run_config.h"
#include "train/compute_model.h"
#include "train/trainer.h"
#include "workload/catalog/proxy_model.h"

namespace commlab {

// The proxy's DDP buckets: layers taken last to first, a bucket closed when the next layer would
// take it past `cap_elements` (a larger layer is a bucket of its own). Buckets are numbered in
// readiness order (0: the one holding the last layer); `layer_bucket[l]` is the bucket whose
// collective starts when layer l's backward ends, -1 for the other layers.
struct ProxyBuckets {
  std::vector<BucketInfo> buckets;
  std::vector<int> layer_bucket;
};
ProxyBuckets proxy_buckets(const ProxyModel& model, size_t cap_elements);

class ProxyTimer {
 public:
  // `reducer` plans the run's collectives (it and `backend` must outlive the timer). Throws
  // std::invalid_argument naming workload.time_as for an unknown model or the packet backend.
  ProxyTimer(const RunConfig& config, NetworkBackend& backend, const CollectiveReducer& reducer);
  // Replaces `s`'s time plane with the proxy's (the sample of iteration s.iteration, 1-based).
  void retime(Sample& s);
  const ProxyModel& model() const { return model_; }
  const ProxyBuckets& buckets() const { return buckets_; }
  // The iteration time at wire ratio `ratio` and no codec time, for iteration `iteration`
  // (0-based): what retime charges when the data plane measured that ratio.
  StepTiming time_iteration(int iteration, double ratio, double codec_s_per_byte) const;

 private:
  RunConfig config_;
  NetworkBackend& backend_;
  const CollectiveReducer& reducer_;
  ProxyModel model_;
  ProxyBuckets buckets_;
  std::vector<LayerCost> layers_;
  double wire_element_bytes_ = 4;
  double clock_s_ = 0;
};

}  // namespace commlab
