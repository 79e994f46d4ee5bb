#pragma once
// Ranks and the cluster spec kept in step: the spec a new rank count turns the current
// spec into, and the GPU count of a typed spec. A custom kind (flat, node, leafspine, rail) is
// rewritten; a preset or file cannot follow, and the refusal names the control to change.
#include <QString>
#include <optional>

namespace commlab::ui {

// The spec of `spec` resized to `ranks` GPUs (the same text when it already has them), or
// nothing with `why` saying which control to change.
std::optional<QString> spec_for_ranks(const QString& spec, int ranks, int spec_gpus, QString* why);

// GPUs of `spec` (custom kinds parsed, others built once and cached); -1 when it does not build.
int spec_gpu_count(const QString& spec);

// The engine's cross-field message in the panel's words (its "omit one of them" is file syntax).
QString panel_wording(const QString& problem);

}  // namespace commlab::ui
