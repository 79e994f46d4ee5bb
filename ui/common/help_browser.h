#pragma once
// Help > GUI guide and the other pages: the project's Markdown docs rendered inside the app
// (QTextBrowser reads .md as Markdown), links between them followed in place, opened at the
// section of the page the user is on. A missing docs folder is said in the window, not a blank.
#include <QDialog>
#include <QString>

class QTextBrowser;

namespace commlab::ui {

class HelpBrowser : public QDialog {
  Q_OBJECT
 public:
  explicit HelpBrowser(QWidget* parent = nullptr);
  // Shows `path` (a .md file) scrolled to the first heading (else paragraph) that starts with
  // `section` ("" for the top). Returns false, with the reason in the window, when it is missing.
  bool open_page(const QString& path, const QString& section = {});
  QTextBrowser* browser() const { return browser_; }

 private:
  bool scroll_to(const QString& section);
  QTextBrowser* browser_;
};

}  // namespace commlab::ui
