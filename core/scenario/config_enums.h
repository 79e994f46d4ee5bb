#pragma once
// The closed sets of scenario fields as enum classes: a scenario's text is parsed into
// them once, where the JSON or the flags are read (schema.h), and everything after the boundary
// switches on values instead of comparing strings. Each enum has one table of spellings
// (config_enums.cpp); the field table takes its allowed values from it, so validation, the docs,
// the GUI's combo boxes and the scenario.json written back all use the same words. Engine enums
// that already exist (e.g. network's Admission) get the scenario's spellings here.
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "codec/codec.h"
#include "codec/lossy/trim_format.h"
#include "collective/codec_wire.h"
#include "collective/skip.h"
#include "network/packet_config.h"
#include "train/data/sampler.h"
#include "train/optimizer.h"

namespace commlab {

// execution: where the ranks run.
enum class ExecutionMode { kSimulated, kMpi };
// workload.kind: what a run's iterations are.
enum class WorkloadKind { kTrain, kCatalog, kTrace };
// cluster.backend: the network timing backend.
enum class ClusterBackend { kAnalytical, kPacket };
// workload.engine: how a catalog workload is timed (graph: per-rank graphs replayed; sum: the
// closed form with every message exposed).
enum class WorkloadEngine { kGraph, kSum };
// techniques.trimming.mode: who decides which packets are trimmed (Bernoulli draws at the given
// rate, or the packet backend's full queues).
enum class TrimMode { kBernoulli, kQueue };

// packet.admission and packet.transport are network's Admission and Transport; the scenario
// spells Admission::kTailDrop "droptail" (network's own name is "tail-drop").

// training.sharding, training.optimizer and training.decay are train's ShardingMode, OptimizerKind
// and DecayKind, spelled as train spells them.

// collective.wire and workload.grad_dtype are codec's DType, spelled fp32 and bf16 (fp16 is not
// a wire format of either); techniques.codec_placement is collective's CodecPlacement (gpu, cpu,
// nic), the placement the time plane charges (codec_wire.h).

// techniques.skipreduce.policy is collective's SkipPolicy, spelled as collective spells it;
// techniques.trimming.encoding is the trim codec's TrimEncoding, spelled as trim_format spells it.

// One spelling of an enum value, as a scenario writes it.
template <class E>
struct EnumSpelling {
  E value;
  const char* name;
};

// The spellings of E, in the order the docs list them. Specialised for each enum above.
template <class E>
std::span<const EnumSpelling<E>> enum_spellings();

template <>
std::span<const EnumSpelling<ExecutionMode>> enum_spellings<ExecutionMode>();
template <>
std::span<const EnumSpelling<WorkloadKind>> enum_spellings<WorkloadKind>();
template <>
std::span<const EnumSpelling<ClusterBackend>> enum_spellings<ClusterBackend>();
template <>
std::span<const EnumSpelling<Admission>> enum_spellings<Admission>();
template <>
std::span<const EnumSpelling<Transport>> enum_spellings<Transport>();
template <>
std::span<const EnumSpelling<ShardingMode>> enum_spellings<ShardingMode>();
template <>
std::span<const EnumSpelling<OptimizerKind>> enum_spellings<OptimizerKind>();
template <>
std::span<const EnumSpelling<DecayKind>> enum_spellings<DecayKind>();
template <>
std::span<const EnumSpelling<SkipPolicy>> enum_spellings<SkipPolicy>();
template <>
std::span<const EnumSpelling<trim::TrimEncoding>> enum_spellings<trim::TrimEncoding>();
template <>
std::span<const EnumSpelling<TrimMode>> enum_spellings<TrimMode>();
template <>
std::span<const EnumSpelling<WorkloadEngine>> enum_spellings<WorkloadEngine>();
template <>
std::span<const EnumSpelling<DType>> enum_spellings<DType>();
template <>
std::span<const EnumSpelling<CodecPlacement>> enum_spellings<CodecPlacement>();

// The value spelled `text`, or nothing.
template <class E>
std::optional<E> parse_enum(std::string_view text) {
  for (const EnumSpelling<E>& s : enum_spellings<E>())
    if (text == s.name) return s.value;
  return std::nullopt;
}

// The scenario's spelling of `value` (what scenario.json holds).
template <class E>
std::string enum_name(E value) {
  for (const EnumSpelling<E>& s : enum_spellings<E>())
    if (s.value == value) return s.name;
  throw std::logic_error("enum value without a spelling: " +
                         std::to_string(static_cast<long long>(value)));
}

// Every spelling, in table order (the field table's choices).
template <class E>
std::vector<std::string> enum_names() {
  std::vector<std::string> out;
  for (const EnumSpelling<E>& s : enum_spellings<E>()) out.emplace_back(s.name);
  return out;
}

}  // namespace commlab
