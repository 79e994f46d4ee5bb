#pragma once
// Base class for codecs that write one frame (frame.h) around a codec-specific payload. It does the
// header, the checksum, the bounds checks and, for codecs that allow it, the stored fallback, so a
// codec implements only its payload.
#include <string>

#include "codec/codec.h"
#include "codec/frame.h"

namespace commlab {

class FramedCodec : public Codec {
 public:
  FramedCodec(std::string name, frame::CodecId id, bool lossless, bool allow_stored)
      : name_(std::move(name)), id_(id), lossless_(lossless), allow_stored_(allow_stored) {}

  std::string name() const override { return name_; }
  bool lossless() const override { return lossless_; }
  size_t bound(size_t input_bytes) const override;
  Result<size_t> encode(std::span<const std::byte> in, DType dtype,
                        std::span<std::byte> out) override;
  Result<size_t> decode(std::span<const std::byte> in, std::span<std::byte> out) override;

 protected:
  // Largest payload for `input_bytes` (used for bound() when stored fallback is not allowed, and
  // to size the scratch the payload encoder writes into).
  virtual size_t payload_bound(size_t input_bytes) const = 0;
  // Writes the payload; returns its size, or an error (e.g. unsupported dtype, or "does not fit",
  // which triggers the stored fallback when allowed).
  virtual Result<size_t> encode_payload(std::span<const std::byte> in, DType dtype,
                                        std::span<std::byte> out) = 0;
  // Decodes the payload into out (exactly original_size bytes); returns an error on bad input.
  virtual Result<size_t> decode_payload(std::span<const std::byte> payload, DType dtype,
                                        std::span<std::byte> out) = 0;
  // Called after every successful encode (with the input) and decode (with the output): stateful
  // codecs update their per-stream state here, whatever representation the frame used.
  virtual void observe_encoded(std::span<const std::byte> /*in*/, DType /*dtype*/) {}
  virtual void observe_decoded(std::span<const std::byte> /*out*/, DType /*dtype*/) {}
  // Threads the codec codes a buffer of `bytes` on (the frame's checksum too); 1 unless overridden.
  virtual int threads_for(size_t /*bytes*/) const { return 1; }
  // Dtypes the codec accepts; others are rejected by encode() (never silently stored).
  virtual bool supports(DType /*dtype*/) const { return true; }

 private:
  std::string name_;
  frame::CodecId id_;
  bool lossless_;
  bool allow_stored_;
};

}  // namespace commlab
