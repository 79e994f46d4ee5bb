#pragma once
// Export of any view: PNG (raster), SVG (QSvgGenerator, vector) and its data as CSV. Views
// implement Exportable; the File menu calls the helpers below on the current tab.
#include <QSize>
#include <QString>
#include <QStringList>
#include <vector>

class QChart;
class QPainter;
class QWidget;

namespace commlab::ui {

struct CsvTable {
  QStringList header;
  std::vector<QStringList> rows;
};

class Exportable {
 public:
  virtual ~Exportable() = default;
  virtual QString export_name() const = 0;  // file stem, e.g. "busbw"
  virtual QSize export_size() const = 0;
  // Paints the view into a painter whose device is export_size() large.
  virtual void export_render(QPainter& painter) const = 0;
  virtual CsvTable export_data() const = 0;
};

// Every helper returns an empty string on success, or what went wrong.
QString export_png(const Exportable& view, const QString& file);
QString export_svg(const Exportable& view, const QString& file);
QString export_csv(const CsvTable& table, const QString& file);

// Long format of every XY series in a chart: series, x, y.
CsvTable chart_table(const QChart* chart, const QString& x_name, const QString& y_name);
// Renders a widget (and its children) into the painter, scaled to fill export_size.
void render_widget(const QWidget* widget, QPainter& painter);

}  // namespace commlab::ui
