// chart_files.h: the run charts as PNG and SVG files, drawn offscreen by the GUI's builders.
#include "chart_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <QApplication>
#include <QBuffer>
#include <QChart>
#include <QDir>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <memory>
#include <mutex>

#include "run_charts.h"
#include "scenario/run/results_io.h"

namespace commlab {

namespace {

constexpr int kWidth = 900, kHeight = 540;  // px; the PNG is drawn at twice this

// The CLI has no QApplication: make an offscreen one once and keep it (Qt wants one per process;
// charts are QGraphicsWidgets and need the widget style, hence QApplication, not QGuiApplication).
bool ensure_application(std::string* error) {
  static std::once_flag once;
  std::call_once(once, [] {
    if (QCoreApplication::instance()) return;
    // Without XDG_RUNTIME_DIR Qt picks /tmp/runtime-<user> and warns on stderr, which a headless
    // CLI run should not print: make that choice ourselves, quietly.
    if (!qEnvironmentVariableIsSet("XDG_RUNTIME_DIR")) {
      const std::string dir = "/tmp/runtime-" + std::to_string(getuid());
      mkdir(dir.c_str(), 0700);
      setenv("XDG_RUNTIME_DIR", dir.c_str(), 0);
    }
    static int argc = 3;
    static char arg0[] = "commlab-cli", arg1[] = "-platform", arg2[] = "offscreen";
    static char* argv[] = {arg0, arg1, arg2, nullptr};
    new QApplication(argc, argv);  // lives until exit, by design
  });
  if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
    if (error) *error = "charts need a QApplication, but a non-GUI Qt application exists";
    return false;
  }
  return true;
}

// Lays the chart out in a scene of the given size and paints it.
void paint_chart(QChart* chart, QPainter& painter, const QSizeF& size) {
  QGraphicsScene scene;
  scene.addItem(chart);  // the scene owns it now
  chart->setGeometry(QRectF(QPointF(0, 0), size));
  QCoreApplication::sendPostedEvents();  // layout requests of the chart and its axes
  chart->setGeometry(QRectF(QPointF(0, 0), size));
  scene.setSceneRect(QRectF(QPointF(0, 0), size));
  scene.render(&painter, QRectF(QPointF(0, 0), size), QRectF(QPointF(0, 0), size));
}

// Every byte written and synced (write_file checks each write): a full disk is an error, never a
// truncated SVG or a 0-byte PNG in a committed results folder.
std::string save_bytes(const QString& file, const QByteArray& bytes) {
  try {
    write_file(file.toStdString(),
               std::string(bytes.constData(), static_cast<size_t>(bytes.size())));
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

std::string write_png(ui::RunChart kind, const std::vector<ui::RunSeries>& runs,
                      const QString& file) {
  QImage image(QSize(kWidth, kHeight) * 2, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(2);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    paint_chart(ui::build_run_chart(kind, runs), painter, QSizeF(kWidth, kHeight));
  }
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG")) return "could not encode " + file.toStdString();
  return save_bytes(file, bytes);
}

std::string write_svg(ui::RunChart kind, const std::vector<ui::RunSeries>& runs,
                      const QString& file) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(QSize(kWidth, kHeight));
  svg.setViewBox(QRect(0, 0, kWidth, kHeight));
  svg.setTitle(QString("CommLab: ") + ui::run_chart_info(kind).title);
  QPainter painter;
  if (!painter.begin(&svg)) return "could not write " + file.toStdString();
  painter.setRenderHint(QPainter::Antialiasing);
  paint_chart(ui::build_run_chart(kind, runs), painter, QSizeF(kWidth, kHeight));
  painter.end();
  return save_bytes(file, bytes);
}

}  // namespace

bool charts_available() {
  return true;
}

std::vector<std::string> run_chart_names() {
  std::vector<std::string> names;
  for (const ui::RunChartInfo& info : ui::run_chart_infos()) names.push_back(info.file);
  return names;
}

std::vector<std::string> write_run_charts(const std::vector<ChartRun>& runs, const std::string& dir,
                                          std::string* error) {
  static std::mutex mutex;  // one writer at a time: Qt's GUI objects are not for many threads
  std::lock_guard lock(mutex);
  std::vector<std::string> written;
  if (!ensure_application(error)) return written;
  const QString qdir = QString::fromStdString(dir);
  if (!QDir().mkpath(qdir)) {
    if (error) *error = "could not create directory " + dir;
    return written;
  }
  std::vector<ui::RunSeries> series;
  for (const ChartRun& r : runs) series.push_back({r.name, &r.samples, r.summary.mean_ratio});
  for (const ui::RunChartInfo& info : ui::run_chart_infos()) {
    if (!ui::run_chart_has_data(info.kind, series)) continue;
    const QString stem = QDir(qdir).filePath(info.file);
    std::string problem = write_png(info.kind, series, stem + ".png");
    if (problem.empty()) {
      written.push_back((stem + ".png").toStdString());
      problem = write_svg(info.kind, series, stem + ".svg");
    }
    if (!problem.empty()) {
      if (error) *error = problem;
      return written;
    }
    written.push_back((stem + ".svg").toStdString());
  }
  if (error) error->clear();
  return written;
}

}  // namespace commlab
