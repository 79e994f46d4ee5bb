// commlab: the desktop app. Thin: parse arguments, open the main window (or render it to a PNG
// with --screenshot, which works with QT_QPA_PLATFORM=offscreen).
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QTimer>
#include <cstdio>

#include "main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("CommLab");
  QApplication::setApplicationVersion("0.1.0");
  QFile style(":/style.qss");
  if (style.open(QIODevice::ReadOnly)) app.setStyleSheet(QString::fromUtf8(style.readAll()));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "CommLab: a laboratory for the communication of distributed training");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("scenario", "scenario file to open (JSON)", "[SCENARIO.json]");
  QCommandLineOption shot("screenshot", "render the main window to FILE.png and exit", "FILE");
  QCommandLineOption iterations("iterations", "iterations to run before the screenshot", "N");
  QCommandLineOption tab("tab", "tab to show in the screenshot", "NAME");
  parser.addOptions({shot, iterations, tab});
  parser.process(app);

  commlab::ui::MainWindow window;
  if (parser.isSet(tab) && !window.select_tab(parser.value(tab))) {
    std::fprintf(stderr, "commlab: --tab: no tab named '%s'\n", qPrintable(parser.value(tab)));
    return 2;
  }
  if (!parser.isSet(shot)) {
    window.show();
    return app.exec();
  }
  const QString file = parser.value(shot);
  window.show();
  auto* poll = new QTimer(&window);
  int waited_ms = 0;
  QObject::connect(poll, &QTimer::timeout, [&] {
    waited_ms += 50;
    if (!window.idle() && waited_ms < 120000) return;
    poll->stop();
    bool ok = window.grab().save(file);
    if (!ok) std::fprintf(stderr, "commlab: could not write %s\n", qPrintable(file));
    app.exit(ok ? 0 : 1);
  });
  poll->start(50);
  return app.exec();
}
