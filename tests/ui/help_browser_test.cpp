// Help renders the project's Markdown docs inside the app (not raw .md
// files through the desktop, which did nothing without a launcher), at the current page's section.
#include "help_browser.h"

#include <gtest/gtest.h>

#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>

#include "ui_test_util.h"

namespace commlab::ui {
namespace {

const QString kGuide = QString(COMMLAB_SOURCE_DIR) + "/docs/gui.md";

TEST(HelpBrowser, RendersTheGuidesHeadingsAsHeadings) {
  test::app();
  HelpBrowser help;
  ASSERT_TRUE(help.open_page(kGuide));
  // "# ..." in the file becomes a level-1 heading block, "## Tabs" a level-2 one: rendered
  // Markdown, not the file's text with its hashes.
  const QTextDocument* doc = help.browser()->document();
  bool tabs_heading = false;
  for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
    if (b.text() == "Tabs") tabs_heading = b.blockFormat().headingLevel() == 2;
  EXPECT_TRUE(tabs_heading);
  EXPECT_FALSE(doc->toPlainText().contains("## Tabs"));
}

TEST(HelpBrowser, OpensAtTheCurrentPagesSection) {
  test::app();
  HelpBrowser help;
  help.resize(800, 400);
  help.show();
  ASSERT_TRUE(help.open_page(kGuide, "Workload"));
  // The cursor sits on the "## Workload page" heading, and the view scrolled away from the top.
  const QTextBlock block = help.browser()->textCursor().block();
  EXPECT_TRUE(block.text().startsWith("Workload")) << block.text().toStdString();
  EXPECT_GT(block.blockFormat().headingLevel(), 0);
  EXPECT_GT(help.browser()->verticalScrollBar()->value(), 0);
}

TEST(HelpBrowser, AMissingDocsFolderIsSaidNotBlank) {
  test::app();
  HelpBrowser help;
  EXPECT_FALSE(help.open_page("/nonexistent/docs/gui.md"));
  const QString text = help.browser()->document()->toPlainText();
  EXPECT_TRUE(text.contains("Documentation not found")) << text.toStdString();
  EXPECT_TRUE(text.contains("/nonexistent/docs/gui.md"));
}

}  // namespace
}  // namespace commlab::ui
