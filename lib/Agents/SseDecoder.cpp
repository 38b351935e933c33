//===- SseDecoder.cpp - Server-Sent Events for streamed completions ------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/SseDecoder.h"

namespace forgestencil {
namespace agents {

void SseDecoder::feed(std::string_view Bytes) {
  PartialLine.append(Bytes);
  size_t Start = 0;
  while (true) {
    size_t End = PartialLine.find('\n', Start);
    if (End == std::string::npos)
      break;
    std::string_view Line(PartialLine.data() + Start, End - Start);
    if (!Line.empty() && Line.back() == '\r')
      Line.remove_suffix(1);
    processLine(Line);
    Start = End + 1;
  }
  PartialLine.erase(0, Start);
}

void SseDecoder::finish() {
  if (!PartialLine.empty()) {
    std::string Last;
    Last.swap(PartialLine);
    if (!Last.empty() && Last.back() == '\r')
      Last.pop_back();
    processLine(Last);
  }
  dispatch();
}

void SseDecoder::processLine(std::string_view Line) {
  if (Line.empty()) {
    dispatch();
    return;
  }
  if (Line.front() == ':')
    return; // A comment, used by servers as a keep-alive.
  size_t Colon = Line.find(':');
  std::string_view Field = Line.substr(0, Colon);
  if (Field != "data")
    return;
  std::string_view Value =
      Colon == std::string_view::npos ? std::string_view() : Line.substr(Colon + 1);
  if (!Value.empty() && Value.front() == ' ')
    Value.remove_prefix(1);
  if (HasData)
    EventData.push_back('\n');
  EventData.append(Value);
  HasData = true;
}

void SseDecoder::dispatch() {
  if (!HasData)
    return;
  std::string Data;
  Data.swap(EventData);
  HasData = false;
  if (Data == "[DONE]") {
    Done = true;
    return;
  }
  OnEvent(Data);
}

} // namespace agents
} // namespace forgestencil
