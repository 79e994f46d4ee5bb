#pragma once
// The pictures of core/views as JSON: what each GUI page draws, with the settings it was drawn
// from (`commlab-cli view`, docs/cli.md). Keys are snake_case with their unit in the name, like the
// CLI's other JSON. Only the engine's deterministic numbers: the wall-clock times
// (TopologyPicture::compute_s, the scheduler's wall_s) are left out, so the same settings give the
// same document whatever the machine or the thread count.
#include <nlohmann/json.hpp>
#include <vector>

#include "views/busbw_model.h"
#include "views/teaching_model.h"
#include "views/topology_model.h"
#include "views/workload_model.h"

namespace commlab::views {

nlohmann::json to_json(const TopologySettings& settings);
// Boxes, drawn edges (both directions), every topology link's load and the summary line's figures.
nlohmann::json to_json(const TopologyPicture& picture);

nlohmann::json to_json(const TeachingSettings& settings);
// Every frame: its transfers (with the display cells they cover), the contribution masks and, when
// trimming, the relative errors and packet counts; the caption the page shows.
nlohmann::json to_json(const TeachingTrace& trace);

nlohmann::json to_json(const WorkloadSettings& settings);
// The title, the replay's totals (critical path split, time per kind), the ECMP comparison and
// every Gantt lane with its bars (node name, kind, times, on the critical path or not).
nlohmann::json to_json(const WorkloadPicture& picture);

nlohmann::json to_json(const ThroughputSettings& settings);
// One entry per curve: its points (bytes, busbw, NCCL's choice) and, flat, its ceiling.
nlohmann::json to_json(const ThroughputSettings& settings, const std::vector<BusbwSeries>& series);

}  // namespace commlab::views
