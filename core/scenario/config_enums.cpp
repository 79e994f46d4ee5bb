// The spellings of the scenario's enums (config_enums.h), in the order docs/scenario.md lists them.
#include "scenario/config_enums.h"

namespace commlab {
namespace {

template <class E, size_t N>
std::span<const EnumSpelling<E>> table(const EnumSpelling<E> (&rows)[N]) {
  return {rows, N};
}

}  // namespace

template <>
std::span<const EnumSpelling<ExecutionMode>> enum_spellings<ExecutionMode>() {
  static constexpr EnumSpelling<ExecutionMode> kRows[] = {{ExecutionMode::kSimulated, "simulated"},
                                                          {ExecutionMode::kMpi, "mpi"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<WorkloadKind>> enum_spellings<WorkloadKind>() {
  static constexpr EnumSpelling<WorkloadKind> kRows[] = {{WorkloadKind::kTrain, "train"},
                                                         {WorkloadKind::kCatalog, "catalog"},
                                                         {WorkloadKind::kTrace, "trace"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<ClusterBackend>> enum_spellings<ClusterBackend>() {
  static constexpr EnumSpelling<ClusterBackend> kRows[] = {
      {ClusterBackend::kAnalytical, "analytical"}, {ClusterBackend::kPacket, "packet"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<Admission>> enum_spellings<Admission>() {
  static constexpr EnumSpelling<Admission> kRows[] = {
      {Admission::kTailDrop, "droptail"}, {Admission::kEcn, "ecn"}, {Admission::kTrim, "trim"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<Transport>> enum_spellings<Transport>() {
  static constexpr EnumSpelling<Transport> kRows[] = {{Transport::kReliable, "reliable"},
                                                      {Transport::kNdp, "ndp"},
                                                      {Transport::kAcceptTrimmed, "accept-trimmed"},
                                                      {Transport::kRoce, "roce"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<ShardingMode>> enum_spellings<ShardingMode>() {
  static constexpr EnumSpelling<ShardingMode> kRows[] = {{ShardingMode::kRandom, "random"},
                                                         {ShardingMode::kShard, "shard"},
                                                         {ShardingMode::kNonIid, "non-iid"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<OptimizerKind>> enum_spellings<OptimizerKind>() {
  static constexpr EnumSpelling<OptimizerKind> kRows[] = {{OptimizerKind::kSgd, "sgd"},
                                                          {OptimizerKind::kAdamW, "adamw"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<DecayKind>> enum_spellings<DecayKind>() {
  static constexpr EnumSpelling<DecayKind> kRows[] = {{DecayKind::kConstant, "constant"},
                                                      {DecayKind::kCosine, "cosine"},
                                                      {DecayKind::kStep, "step"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<SkipPolicy>> enum_spellings<SkipPolicy>() {
  static constexpr EnumSpelling<SkipPolicy> kRows[] = {{SkipPolicy::kNaive, "naive"},
                                                       {SkipPolicy::kRandom, "random"},
                                                       {SkipPolicy::kSelective, "selective"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<trim::TrimEncoding>> enum_spellings<trim::TrimEncoding>() {
  using trim::TrimEncoding;
  static constexpr EnumSpelling<TrimEncoding> kRows[] = {
      {TrimEncoding::kSq, "sq"}, {TrimEncoding::kDrive, "drive"}, {TrimEncoding::kEden, "eden"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<TrimMode>> enum_spellings<TrimMode>() {
  static constexpr EnumSpelling<TrimMode> kRows[] = {{TrimMode::kBernoulli, "bernoulli"},
                                                     {TrimMode::kQueue, "queue"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<WorkloadEngine>> enum_spellings<WorkloadEngine>() {
  static constexpr EnumSpelling<WorkloadEngine> kRows[] = {{WorkloadEngine::kGraph, "graph"},
                                                           {WorkloadEngine::kSum, "sum"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<DType>> enum_spellings<DType>() {
  static constexpr EnumSpelling<DType> kRows[] = {{DType::kFp32, "fp32"}, {DType::kBf16, "bf16"}};
  return table(kRows);
}

template <>
std::span<const EnumSpelling<CodecPlacement>> enum_spellings<CodecPlacement>() {
  static constexpr EnumSpelling<CodecPlacement> kRows[] = {
      {CodecPlacement::kGpu, "gpu"}, {CodecPlacement::kCpu, "cpu"}, {CodecPlacement::kNic, "nic"}};
  return table(kRows);
}

}  // namespace commlab
