#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>

#include "train/dataset.h"

namespace commlab {
namespace {

namespace fs = std::filesystem;

void put_be32(std::vector<uint8_t>& v, uint32_t x) {
  for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<uint8_t>(x >> s));
}

void write_gz(const fs::path& p, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  if (!bytes.empty()) gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}

std::vector<uint8_t> images(uint32_t n, uint32_t rows, uint32_t cols, size_t payload) {
  std::vector<uint8_t> v{0, 0, 8, 3};
  put_be32(v, n);
  put_be32(v, rows);
  put_be32(v, cols);
  for (size_t i = 0; i < payload; ++i) v.push_back(static_cast<uint8_t>(i * 37));
  return v;
}

std::vector<uint8_t> labels(uint32_t n, size_t payload) {
  std::vector<uint8_t> v{0, 0, 8, 1};
  put_be32(v, n);
  for (size_t i = 0; i < payload; ++i) v.push_back(static_cast<uint8_t>(i % 10));
  return v;
}

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("commlab_loader_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A valid pair of splits with n rows each, then a test overwrites one file.
  void write_valid(uint32_t n) {
    for (const char* split : {"train", "t10k"}) {
      write_gz(dir_ / (std::string(split) + "-images-idx3-ubyte.gz"), images(n, 28, 28, n * 784));
      write_gz(dir_ / (std::string(split) + "-labels-idx1-ubyte.gz"), labels(n, n));
    }
  }
  std::string load_error() {
    auto r = load_fashion_mnist(dir_.string());
    EXPECT_FALSE(r.ok());
    return r.ok() ? "" : r.error();
  }
  fs::path dir_;
};

TEST_F(LoaderTest, ValidFilesLoadScaledPixelsAndLabels) {
  write_valid(3);
  auto r = load_fashion_mnist(dir_.string());
  ASSERT_TRUE(r.ok()) << r.error();
  const Dataset& d = r.value().train;
  ASSERT_EQ(d.rows(), 3);
  ASSERT_EQ(d.x.cols(), 784);
  // Pixel k of the payload is (k*37 mod 256) / 255; row 1 col 5 is payload index 789.
  EXPECT_FLOAT_EQ(d.x(1, 5), static_cast<float>((789 * 37) % 256) / 255.0f);
  EXPECT_EQ(d.y, (std::vector<int32_t>{0, 1, 2}));
}

TEST_F(LoaderTest, MissingFilesNameTheDebianPackage) {
  EXPECT_NE(load_error().find("dataset-fashion-mnist"), std::string::npos);
}

TEST_F(LoaderTest, BadMagicIsReported) {
  write_valid(2);
  auto bad = images(2, 28, 28, 2 * 784);
  bad[3] = 2;  // claims rank 2
  write_gz(dir_ / "train-images-idx3-ubyte.gz", bad);
  EXPECT_NE(load_error().find("bad magic"), std::string::npos);
}

TEST_F(LoaderTest, TruncatedDataIsReported) {
  write_valid(4);
  write_gz(dir_ / "train-images-idx3-ubyte.gz", images(4, 28, 28, 3 * 784 + 100));
  EXPECT_NE(load_error().find("truncated"), std::string::npos);
}

TEST_F(LoaderTest, HostileHeaderIsRejectedBeforeAllocating) {
  write_valid(2);
  // Declares 2^31 * 28 * 28 bytes (1.6 TB) in a file of a few hundred bytes: rejected by the
  // deflate-ratio bound, not by an allocation failure.
  write_gz(dir_ / "train-images-idx3-ubyte.gz", images(0x80000000u, 28, 28, 100));
  const std::string e = load_error();
  EXPECT_TRUE(e.find("holds at most") != std::string::npos || e.find("absurd") != std::string::npos)
      << e;
}

TEST_F(LoaderTest, DimensionMismatchIsReported) {
  write_valid(2);
  write_gz(dir_ / "t10k-labels-idx1-ubyte.gz", labels(3, 3));
  EXPECT_NE(load_error().find("dimension mismatch"), std::string::npos);
}

TEST_F(LoaderTest, WrongImageSizeIsReported) {
  write_valid(2);
  write_gz(dir_ / "train-images-idx3-ubyte.gz", images(2, 32, 32, 2 * 1024));
  EXPECT_NE(load_error().find("dimension mismatch"), std::string::npos);
}

TEST_F(LoaderTest, NotGzipNotIdxIsReported) {
  write_valid(2);
  std::FILE* f = std::fopen((dir_ / "train-labels-idx1-ubyte.gz").c_str(), "wb");
  std::fputs("this is not an idx file at all, just text", f);
  std::fclose(f);
  EXPECT_NE(load_error().find("corrupt"), std::string::npos);
}

TEST(FashionMnist, RealDataHasPublishedShapeAndBalancedClasses) {
  if (!fs::exists(kFashionMnistDir)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  auto r = load_fashion_mnist(kFashionMnistDir, 0, 0);
  ASSERT_TRUE(r.ok()) << r.error();
  // Published: 60,000 train and 10,000 test images of 28x28, 6,000 / 1,000 per class.
  EXPECT_EQ(r.value().train.rows(), 60000);
  EXPECT_EQ(r.value().test.rows(), 10000);
  std::vector<int> count(10);
  for (int32_t y : r.value().test.y) count[y]++;
  for (int c : count) EXPECT_EQ(c, 1000);
  EXPECT_LE(r.value().train.x.maxCoeff(), 1.0f);
  EXPECT_GE(r.value().train.x.minCoeff(), 0.0f);
}

}  // namespace
}  // namespace commlab
