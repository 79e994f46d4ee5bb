#pragma once
// Human-readable numbers for labels and tooltips (binary sizes, rates, times).
#include <QString>
#include <cmath>

namespace commlab::ui {

// 1024 -> "1K", 3 << 20 -> "3M", 512 -> "512" (axis labels: short, binary prefixes).
inline QString short_bytes(double bytes) {
  static const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return QString::number(bytes, 'g', 3) + units[u];
}

// 1.5e6 -> "1.43 MiB" style with one decimal where it matters.
inline QString long_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return QString::number(bytes, 'g', bytes < 10 ? 3 : 4) + " " + units[u];
}

inline QString seconds_text(double s) {
  if (s >= 1) return QString::number(s, 'g', 3) + " s";
  if (s >= 1e-3) return QString::number(s * 1e3, 'g', 3) + " ms";
  return QString::number(s * 1e6, 'g', 3) + " us";
}

// Bytes per second as network engineers write it: "400 Gb/s (50 GB/s)".
inline QString rate_text(double Bps) {
  return QString::number(Bps * 8 / 1e9, 'g', 4) + " Gb/s (" + QString::number(Bps / 1e9, 'g', 4) +
         " GB/s)";
}

}  // namespace commlab::ui
