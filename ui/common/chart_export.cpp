#include "chart_export.h"

#include <QChart>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QTextStream>
#include <QWidget>
#include <QXYSeries>

namespace commlab::ui {

namespace {

// RFC 4180: quote fields holding a comma, quote or newline; double inner quotes.
QString csv_field(const QString& s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n')) return s;
  QString q = s;
  q.replace("\"", "\"\"");
  return "\"" + q + "\"";
}

QString csv_line(const QStringList& fields) {
  QStringList out;
  for (const QString& f : fields) out << csv_field(f);
  return out.join(',');
}

}  // namespace

QString export_png(const Exportable& view, const QString& file) {
  const QSize size = view.export_size();
  if (size.isEmpty()) return "nothing to export (the view has no size)";
  // Twice the screen size: crisp in documents and READMEs.
  QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(2);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    view.export_render(painter);
  }
  if (!image.save(file, "PNG")) return "could not write " + file;
  return {};
}

QString export_svg(const Exportable& view, const QString& file) {
  const QSize size = view.export_size();
  if (size.isEmpty()) return "nothing to export (the view has no size)";
  QSvgGenerator svg;
  svg.setFileName(file);
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(0, 0), size));
  svg.setTitle("CommLab: " + view.export_name());
  QPainter painter;
  if (!painter.begin(&svg)) return "could not write " + file;
  painter.setRenderHint(QPainter::Antialiasing);
  view.export_render(painter);
  painter.end();
  QFile check(file);
  if (!check.exists() || check.size() == 0) return "could not write " + file;
  return {};
}

QString export_csv(const CsvTable& table, const QString& file) {
  QFile out(file);
  if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text))
    return "could not write " + file;
  QTextStream stream(&out);
  stream << csv_line(table.header) << "\n";
  for (const QStringList& row : table.rows) stream << csv_line(row) << "\n";
  stream.flush();
  return out.error() == QFile::NoError ? QString() : "could not write " + file;
}

CsvTable chart_table(const QChart* chart, const QString& x_name, const QString& y_name) {
  CsvTable table{{"series", x_name, y_name}, {}};
  if (!chart) return table;
  for (QAbstractSeries* s : chart->series()) {
    auto* xy = qobject_cast<QXYSeries*>(s);
    if (!xy) continue;
    for (const QPointF& p : xy->points())
      table.rows.push_back(
          {xy->name(), QString::number(p.x(), 'g', 12), QString::number(p.y(), 'g', 10)});
  }
  return table;
}

void render_widget(const QWidget* widget, QPainter& painter) {
  // QWidget::render is non-const but does not change the widget.
  const_cast<QWidget*>(widget)->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
}

}  // namespace commlab::ui
