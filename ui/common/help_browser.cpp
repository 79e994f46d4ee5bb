#include "help_browser.h"

#include <QFileInfo>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>

namespace commlab::ui {

HelpBrowser::HelpBrowser(QWidget* parent) : QDialog(parent) {
  setWindowTitle("CommLab help");
  resize(900, 700);
  browser_ = new QTextBrowser;
  browser_->setObjectName("help");
  browser_->setOpenLinks(true);
  browser_->setOpenExternalLinks(true);  // web links go to the browser; .md links open here
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(browser_);
}

bool HelpBrowser::open_page(const QString& path, const QString& section) {
  const QFileInfo file(path);
  if (!file.isFile()) {
    browser_->setMarkdown("# Documentation not found\n\nCommLab looked for `" + path +
                          "` (the `docs/` folder next to the samples, in the source tree or "
                          "installed under `share/commlab/docs`).");
    return false;
  }
  browser_->setSearchPaths({file.absolutePath()});
  browser_->setSource(QUrl::fromLocalFile(file.absoluteFilePath()),
                      QTextDocument::MarkdownResource);
  if (!section.isEmpty()) scroll_to(section);
  return true;
}

bool HelpBrowser::scroll_to(const QString& section) {
  QTextDocument* doc = browser_->document();
  QTextBlock paragraph;
  for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
    if (!b.text().startsWith(section, Qt::CaseInsensitive)) continue;
    if (b.blockFormat().headingLevel() > 0) {
      paragraph = b;
      break;
    }
    if (!paragraph.isValid()) paragraph = b;  // "**Training** (...)": a bold lead-in
  }
  if (!paragraph.isValid()) return false;
  QTextCursor cursor(paragraph);
  browser_->setTextCursor(cursor);
  // The section's first line at the top of the window, not merely somewhere in view.
  browser_->verticalScrollBar()->setValue(browser_->verticalScrollBar()->maximum());
  browser_->ensureCursorVisible();
  return true;
}

}  // namespace commlab::ui
