//===- SseDecoder.h - Server-Sent Events for streamed chat completions ---===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A streamed chat completion arrives as Server-Sent Events: `data: {...}`
/// lines, events separated by a blank line, and a final `data: [DONE]`. The
/// network splits that byte stream anywhere, including in the middle of a
/// line, so the decoder buffers the partial line between feed() calls.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_SSEDECODER_H
#define FORGESTENCIL_AGENTS_SSEDECODER_H

#include <functional>
#include <string>
#include <string_view>

namespace forgestencil {
namespace agents {

/// Splits a Server-Sent Events byte stream into the data payloads of its
/// events. Only the `data` field matters to chat completions; comments
/// (`:` lines) and other fields are skipped.
class SseDecoder {
public:
  /// Called with the data of one complete event (several `data:` lines of
  /// one event are joined with '\n', as the SSE specification says).
  using EventHandler = std::function<void(std::string_view Data)>;

  explicit SseDecoder(EventHandler OnEvent) : OnEvent(std::move(OnEvent)) {}

  /// Feeds the next bytes of the stream, in whatever pieces they arrived.
  void feed(std::string_view Bytes);

  /// Ends the stream: dispatches an event whose terminating blank line never
  /// came (some servers close the connection right after the last line).
  void finish();

  /// True once a `data: [DONE]` event was seen.
  bool sawDone() const { return Done; }

private:
  void processLine(std::string_view Line);
  void dispatch();

  EventHandler OnEvent;
  std::string PartialLine;
  std::string EventData;
  bool HasData = false;
  bool Done = false;
};

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_SSEDECODER_H
