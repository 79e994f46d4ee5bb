// The Codec page draws a tensor file instead of the runs: one bucket per tensor of the
// committed fixtures (tests/data/make_tensor_fixtures.py), and a malformed file is refused with
// its offset, leaving the runs drawn.
#include <gtest/gtest.h>

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <filesystem>
#include <fstream>

#include "run_chart_pages.h"
#include "tensor_file_samples.h"
#include "ui_test_util.h"

namespace commlab::ui {
namespace {

const std::string kTensors = std::string(COMMLAB_SOURCE_DIR) + "/tests/data/tensors/";

TEST(TensorFilePage, SafetensorsTensorsAreTheBuckets) {
  const std::vector<Sample> s = tensor_file_samples(kTensors + "model.safetensors");
  ASSERT_EQ(s.size(), 1u);
  const auto& b = s[0].buckets;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].name, "b.weight");
  EXPECT_EQ(b[0].elements, 15u);  // [3, 5]
  EXPECT_EQ(b[1].elements, 32u);  // [4, 8]
  EXPECT_EQ(b[2].elements, 8u);   // [8]
  // a.bias holds -i in FP16 for i = 0..7: 0x0000, 0xBC00, 0xC000, 0xC200, 0xC400, 0xC500, 0xC600,
  // 0xC700: eight distinct high bytes, equally often: H = log2(8) = 3 bits; low bytes all 0: 0.
  ASSERT_EQ(b[2].plane_entropy.size(), 2u);
  EXPECT_NEAR(b[2].plane_entropy[0], 3.0, 1e-12);
  EXPECT_NEAR(b[2].plane_entropy[1], 0.0, 1e-12);
  EXPECT_EQ(b[0].plane_entropy.size(), 4u);  // FP32
  for (const BucketSample& t : b) EXPECT_GT(t.ratio, 0.0);
}

TEST(TensorFilePage, TheCodecPageDrawsTheFileAndRefusesALyingOne) {
  test::app();
  RunChartPages pages;
  ASSERT_EQ(pages.show_tensor_file(QString::fromStdString(kTensors + "model.safetensors")), "");
  EXPECT_EQ(pages.tabText(pages.currentIndex()), "Codec");
  // One file, one "run": the entropy chart draws one bar set per bucket, i.e. per tensor.
  auto* series = qobject_cast<QBarSeries*>(pages.chart(RunChart::kPlaneEntropy)->series().front());
  ASSERT_NE(series, nullptr);
  QStringList names;
  for (QBarSet* set : series->barSets()) names << set->label();
  EXPECT_EQ(names, (QStringList{"b.weight", "a.weight", "a.bias"}));

  const auto bad = std::filesystem::temp_directory_path() / "commlab_tensor_page_bad.npy";
  std::ofstream(bad, std::ios::binary) << std::string("\x93NUMPY\x01\x00", 8);  // no length
  const QString error = pages.show_tensor_file(QString::fromStdString(bad.string()));
  EXPECT_TRUE(error.contains("bad.npy: offset 8: truncated header")) << error.toStdString();
  std::filesystem::remove(bad);
  pages.clear_tensor_file();
  EXPECT_TRUE(pages.chart(RunChart::kPlaneEntropy)->title().contains("no data"));
}

// A safetensors file of `n` one-value BF16 tensors t0, t1, ... (the header's keys in that order).
std::string many_tensors_file(int n) {
  std::string header = "{";
  for (int i = 0; i < n; ++i)
    header += (i ? "," : "") + std::string("\"t") + std::to_string(i) +
              "\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[" + std::to_string(2 * i) +
              "," + std::to_string(2 * i + 2) + "]}";
  header += "}";
  std::string file(8, '\0');
  for (int b = 0; b < 8; ++b) file[b] = static_cast<char>((header.size() >> (8 * b)) & 0xff);
  return file + header + std::string(2 * static_cast<size_t>(n), '\x3f');
}

// The page applies the item budgets of commlab-cli codec (read_tensor_input_index) with its own
// tensor budget: a 10,000-tensor file (104 s and 416 MB drawn as a bar set per tensor) is refused
// from its header, the refusal is shown and the runs stay drawn.
TEST(TensorFilePage, AFileOfMoreTensorsThanThePageDrawsIsRefusedInThePage) {
  test::app();
  const auto path = std::filesystem::temp_directory_path() / "commlab_tensor_page_many.safetensors";
  std::ofstream(path, std::ios::binary) << many_tensors_file(10000);
  RunChartPages pages;
  const QString error = pages.show_tensor_file(QString::fromStdString(path.string()));
  EXPECT_EQ(error.toStdString(),
            path.string() +
                ": 10000 tensors, over the budget of 256 tensors per input (the Codec page's "
                "charts draw at most 256; commlab-cli codec --input measures up to its "
                "--max-tensors)");
  EXPECT_TRUE(pages.chart(RunChart::kPlaneEntropy)->title().contains("no data"));
  // At the budget the file is drawn: 256 tensors, one bar set each.
  std::ofstream(path, std::ios::binary | std::ios::trunc) << many_tensors_file(256);
  ASSERT_EQ(pages.show_tensor_file(QString::fromStdString(path.string())), "");
  auto* series = qobject_cast<QBarSeries*>(pages.chart(RunChart::kPlaneEntropy)->series().front());
  ASSERT_NE(series, nullptr);
  EXPECT_EQ(series->barSets().size(), 256);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace commlab::ui
