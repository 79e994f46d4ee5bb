#include "teaching_view.h"

#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSpinBox>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>
#include <stdexcept>

#include "collective/algorithms.h"
#include "teaching_canvas.h"
#include "views/view_settings.h"

namespace commlab::ui {

namespace {
constexpr int kPlayIntervalMs = 900;
}

TeachingView::TeachingView(QWidget* parent) : QWidget(parent) {
  QFormLayout* form = make_settings_form();
  form->addRow(make_step_buttons());
  add_shortcuts();
  auto* layout = new QHBoxLayout(this);
  layout->addWidget(make_side_panel(form));
  layout->addLayout(make_picture(), 1);
  timer_ = new QTimer(this);
  timer_->setInterval(kPlayIntervalMs);
  connect_controls();
  recompute();
}

QFormLayout* TeachingView::make_settings_form() {
  auto* form = new QFormLayout;
  ranks_ = new QSpinBox;
  ranks_->setObjectName("ranks");
  ranks_->setRange(views::kTeachingRanks.lo, views::kTeachingRanks.hi);
  ranks_->setValue(4);
  ranks_->setToolTip(QString("Number of GPUs (ranks) in the collective, %1 to %2.")
                         .arg(views::kTeachingRanks.lo)
                         .arg(views::kTeachingRanks.hi));
  algorithm_ = new QComboBox;
  for (const std::string& name : views::kTeachingAlgorithms)
    algorithm_->addItem(QString::fromStdString(name));
  algorithm_->setToolTip(
      "All-reduce algorithm: ring (NCCL, on a circle), double binary tree (drawn as its two "
      "trees), recursive halving-doubling (partners of each round share a row or a column), "
      "hierarchical (nodes side by side), or direct one-shot.");
  per_node_ = new QSpinBox;
  per_node_->setRange(views::kTeachingRanksPerNode.lo, views::kTeachingRanksPerNode.hi);
  per_node_->setValue(2);
  per_node_->setToolTip(
      "Hierarchical only: GPUs per node (consecutive ranks); the ranks must fill whole nodes.");
  skip_ = new QSpinBox;
  skip_->setObjectName("skip");
  skip_->setRange(views::kTeachingSkip.lo, views::kTeachingSkip.hi);
  skip_->setToolTip(
      "SkipReduce s: how many of the ring's N-1 reduce-scatter steps (tree: reduce levels; hd: "
      "halving rounds) are skipped.");
  policy_ = new QComboBox;
  policy_->addItems({"naive", "random", "selective"});
  policy_->setToolTip(
      "SkipReduce policy: naive always drops the same ranks, random rotates the ring per "
      "iteration, selective skips only large buckets.");
  iteration_ = new QSpinBox;
  iteration_->setRange(0, 9999);
  iteration_->setToolTip(
      "Training iteration: with the random policy it picks which ranks each chunk drops.");
  trim_ = new QDoubleSpinBox;
  trim_->setRange(views::kTeachingTrimRate.lo, views::kTeachingTrimRate.hi);
  trim_->setSingleStep(0.1);
  trim_->setDecimals(2);
  trim_->setToolTip(
      "Trimming: the fraction of packets (32 values each) the switches cut to a 1-bit EDEN head; "
      "the cells they feed turn approximate (magenta cross-hatch).");
  form->addRow("Ranks", ranks_);
  form->addRow("Algorithm", algorithm_);
  form->addRow("GPUs per node", per_node_);
  form->addRow("SkipReduce s", skip_);
  form->addRow("Skip policy", policy_);
  form->addRow("Iteration", iteration_);
  form->addRow("Trim rate", trim_);
  return form;
}

QHBoxLayout* TeachingView::make_step_buttons() {
  reset_ = new QPushButton("Reset");
  reset_->setToolTip("Go back to the start, before the first step (Home).");
  // Theme icons, not text symbols: U+23F8 (pause) has no glyph in DejaVu Sans and drew a box.
  back_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaSeekBackward), "Back");
  back_->setToolTip("Show the previous step (Left).");
  play_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), "Play");
  play_->setToolTip(
      "Step forward automatically, one step per second; press again to pause (Space).");
  forward_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaSeekForward), "Forward");
  forward_->setToolTip("Show the next step (Right).");
  auto* buttons = new QHBoxLayout;
  for (QPushButton* b : {reset_, back_, play_, forward_}) buttons->addWidget(b);
  return buttons;
}

void TeachingView::add_shortcuts() {
  // Keyboard stepping for a class: anywhere on the page except inside a control that uses the
  // key itself (a focused spin box keeps Left / Right). Presentation zoom: Ctrl+= (and Ctrl++ on
  // keypads), Ctrl+-, Ctrl+0 back to 100%.
  const std::pair<QKeySequence, void (TeachingView::*)()> keys[] = {
      {Qt::Key_Left, &TeachingView::back},
      {Qt::Key_Right, &TeachingView::forward},
      {Qt::Key_Space, &TeachingView::toggle_play},
      {Qt::Key_Home, &TeachingView::reset},
      {QKeySequence(Qt::CTRL | Qt::Key_Equal), &TeachingView::zoom_in},
      {QKeySequence(Qt::CTRL | Qt::Key_Plus), &TeachingView::zoom_in},
      {QKeySequence(Qt::CTRL | Qt::Key_Minus), &TeachingView::zoom_out},
      {QKeySequence(Qt::CTRL | Qt::Key_0), &TeachingView::zoom_reset}};
  for (const auto& [key, slot] : keys) {
    auto* shortcut = new QShortcut(key, this);
    shortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(shortcut, &QShortcut::activated, this, slot);
  }
}

QWidget* TeachingView::make_side_panel(QFormLayout* form) {
  error_ = new QLabel;
  error_->setObjectName("error");
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #b03030;");
  auto* help = new QLabel(
      "Each GPU's buffer is cut into chunks (c0, c1, ...). A chunk's stripes show whose gradients "
      "it already contains: a full column of colours is the complete sum. Arrows are this step's "
      "transfers: solid adds (reduce), dashed copies; the cells sent are outlined dashed, the "
      "cells received solid.");
  help->setWordWrap(true);
  help->setObjectName("status");
  auto* side = new QWidget;
  // Wrapped labels below the form: a form row would squeeze them to one clipped line.
  auto* column = new QVBoxLayout(side);
  column->addLayout(form);
  column->addWidget(error_);
  column->addWidget(help);
  column->addStretch(1);
  side->setFixedWidth(300);
  return side;
}

QVBoxLayout* TeachingView::make_picture() {
  canvas_ = new TeachingCanvas;
  canvas_->setFocusPolicy(Qt::StrongFocus);  // a click on the picture gives the keys to stepping
  caption_ = new QLabel;
  caption_->setWordWrap(true);
  caption_->setObjectName("caption");
  QFont f = caption_->font();
  caption_base_pt_ = f.pointSizeF() * 1.15;
  f.setPointSizeF(caption_base_pt_);
  caption_->setFont(f);
  caption_->setMinimumHeight(48);
  caption_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  // Zoomed in, the picture keeps the room its boxes need and the page scrolls.
  auto* scroll = new QScrollArea;
  scroll->setWidget(canvas_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* right = new QVBoxLayout;
  right->addWidget(scroll, 1);
  right->addWidget(caption_);
  return right;
}

void TeachingView::connect_controls() {
  connect(timer_, &QTimer::timeout, this, [this] {
    if (!trace_ || frame_ >= trace_->steps()) {
      timer_->stop();
      update_controls();
      return;
    }
    show_frame(frame_ + 1);
  });
  connect(reset_, &QPushButton::clicked, this, &TeachingView::reset);
  connect(back_, &QPushButton::clicked, this, &TeachingView::back);
  connect(forward_, &QPushButton::clicked, this, &TeachingView::forward);
  connect(play_, &QPushButton::clicked, this, &TeachingView::toggle_play);
  connect(ranks_, &QSpinBox::valueChanged, this, &TeachingView::recompute);
  connect(per_node_, &QSpinBox::valueChanged, this, &TeachingView::recompute);
  connect(skip_, &QSpinBox::valueChanged, this, &TeachingView::recompute);
  connect(iteration_, &QSpinBox::valueChanged, this, &TeachingView::recompute);
  connect(trim_, &QDoubleSpinBox::valueChanged, this, &TeachingView::recompute);
  connect(algorithm_, &QComboBox::currentTextChanged, this, &TeachingView::recompute);
  connect(policy_, &QComboBox::currentTextChanged, this, &TeachingView::recompute);
}

void TeachingView::set_zoom(double zoom) {
  canvas_->set_zoom(zoom);
  QFont f = caption_->font();
  f.setPointSizeF(caption_base_pt_ * canvas_->zoom());
  caption_->setFont(f);
}

double TeachingView::zoom() const {
  return canvas_->zoom();
}

void TeachingView::zoom_in() {
  set_zoom(canvas_->zoom() * 1.25);
}

void TeachingView::zoom_out() {
  set_zoom(canvas_->zoom() / 1.25);
}

void TeachingView::zoom_reset() {
  set_zoom(1);
}

QWidget* TeachingView::canvas() const {
  return canvas_;
}

QString TeachingView::error_text() const {
  return error_->text();
}

TeachingSettings TeachingView::settings() const {
  TeachingSettings s;
  s.ranks = ranks_->value();
  s.algorithm = algorithm_->currentText().toStdString();
  s.ranks_per_node = per_node_->value();
  // SkipReduce exists for the algorithms whose descriptor has a skip limit; others reject s > 0.
  s.skip = skips() ? skip_->value() : 0;
  s.policy = policy_->currentText().toStdString();
  s.iteration = static_cast<uint64_t>(iteration_->value());
  s.trim_rate = trim_->value();
  return s;
}

void TeachingView::set_settings(const TeachingSettings& s) {
  const QSignalBlocker b1(ranks_), b2(algorithm_), b3(skip_), b4(policy_), b5(iteration_),
      b6(trim_), b7(per_node_);
  ranks_->setValue(s.ranks);
  per_node_->setValue(s.ranks_per_node);
  algorithm_->setCurrentText(QString::fromStdString(s.algorithm));
  skip_->setValue(s.skip);
  policy_->setCurrentText(QString::fromStdString(s.policy));
  iteration_->setValue(static_cast<int>(s.iteration));
  trim_->setValue(s.trim_rate);
  recompute();
}

void TeachingView::recompute() {
  const TeachingSettings s = settings();
  timer_->stop();
  jobs_.start(
      this, [s] { return std::make_shared<const TeachingTrace>(compute_teaching_trace(s)); },
      [](TeachingView& view, const JobOutcome<std::shared_ptr<const TeachingTrace>>& out) {
        // A rejected setting is reported in place; the previous picture stays.
        view.error_->setText(out.error);
        if (out.value) {
          view.trace_ = *out.value;
          view.canvas_->set_trace(view.trace_);
          view.show_frame(0);
        }
        emit view.computed();
      });
}

void TeachingView::show_frame(int frame) {
  if (!trace_) return;
  frame_ = std::clamp(frame, 0, trace_->steps());
  canvas_->set_frame(frame_);
  caption_->setText(QString::fromStdString(trace_->frames[frame_].caption));
  update_controls();
}

void TeachingView::forward() {
  show_frame(frame_ + 1);
}

void TeachingView::back() {
  show_frame(frame_ - 1);
}

void TeachingView::reset() {
  timer_->stop();
  show_frame(0);
}

void TeachingView::toggle_play() {
  if (timer_->isActive()) {
    timer_->stop();
  } else {
    if (trace_ && frame_ >= trace_->steps()) show_frame(0);
    timer_->start();
  }
  update_controls();
}

QSize TeachingView::export_size() const {
  return canvas_->size() + QSize(0, caption_->height() + 8);
}

void TeachingView::export_render(QPainter& painter) const {
  painter.fillRect(QRect(QPoint(0, 0), export_size()), Qt::white);
  render_widget(canvas_, painter);
  painter.setPen(Qt::black);
  painter.setFont(caption_->font());
  painter.drawText(QRect(8, canvas_->height() + 4, canvas_->width() - 16, caption_->height()),
                   Qt::TextWordWrap, caption_->text());
}

CsvTable TeachingView::export_data() const {
  CsvTable table{{"step", "phase", "rank", "chunk", "contributors_mask", "contributors"}, {}};
  if (!trace_) return table;
  for (int f = 0; f <= trace_->steps(); ++f)
    for (int r = 0; r < trace_->ranks; ++r)
      for (int c = 0; c < trace_->cells(); ++c) {
        const uint32_t mask = trace_->frames[f].masks[r][c];
        QStringList who;
        for (int k = 0; k < trace_->ranks; ++k)
          if (mask & (1u << k)) who << QString::number(k);
        table.rows.push_back({QString::number(f), QString::fromStdString(trace_->frames[f].phase),
                              QString::number(r), QString::number(c), QString::number(mask),
                              who.join(' ')});
      }
  return table;
}

bool TeachingView::skips() const {
  const Algorithm* algorithm = lookup_algorithm(algorithm_->currentText().toStdString());
  return algorithm != nullptr && algorithm->skips();
}

void TeachingView::update_controls() {
  const Algorithm* algorithm = lookup_algorithm(algorithm_->currentText().toStdString());
  const bool skipping = algorithm != nullptr && algorithm->skips();
  {
    // The algorithm's own limit (ring N-1 steps, tree and hd floor(log2 N)); 0 when it cannot skip.
    const QSignalBlocker block(skip_);
    skip_->setMaximum(skipping ? algorithm->skip_limit(ranks_->value()).max : 0);
  }
  skip_->setEnabled(skipping);
  per_node_->setEnabled(algorithm != nullptr && algorithm->whole_nodes);
  policy_->setEnabled(skipping);
  iteration_->setEnabled(skipping);
  const int last = trace_ ? trace_->steps() : 0;
  back_->setEnabled(frame_ > 0);
  forward_->setEnabled(frame_ < last);
  play_->setText(timer_->isActive() ? "Pause" : "Play");
  play_->setIcon(
      style()->standardIcon(timer_->isActive() ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

}  // namespace commlab::ui
