//===- ScriptedServer.h - A real local HTTP server for client tests ------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A cpp-httplib server on 127.0.0.1 and an ephemeral port, answering each
/// request with the next handler of a script. The client under test speaks
/// real HTTP to it through libcurl.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_UNITTESTS_AGENTS_SCRIPTEDSERVER_H
#define FORGESTENCIL_UNITTESTS_AGENTS_SCRIPTEDSERVER_H

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace forgestencil {
namespace agents {
namespace test {

/// What the server saw of one request.
struct SeenRequest {
  std::string Method;
  std::string Path;
  std::string Body;
  std::string Authorization;
};

class ScriptedServer {
public:
  using Handler = std::function<void(const httplib::Request &, httplib::Response &)>;

  ScriptedServer() {
    auto Dispatch = [this](const httplib::Request &Req, httplib::Response &Res) {
      dispatch(Req, Res);
    };
    Server.Post(R"(.*)", Dispatch);
    Server.Get(R"(.*)", Dispatch);
    Port = Server.bind_to_any_port("127.0.0.1");
    Thread = std::thread([this] { Server.listen_after_bind(); });
    while (!Server.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  ~ScriptedServer() {
    Stopping = true;
    Server.stop();
    Thread.join();
  }

  /// Appends the answer to the next request.
  void then(Handler H) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Script.push_back(std::move(H));
  }

  std::string root() const { return "http://127.0.0.1:" + std::to_string(Port); }

  std::vector<SeenRequest> requests() const {
    std::lock_guard<std::mutex> Lock(Mutex);
    return Seen;
  }

  /// Set when the test ends, so a handler that stalls on purpose can return.
  std::atomic<bool> Stopping{false};

private:
  void dispatch(const httplib::Request &Req, httplib::Response &Res) {
    Handler Next;
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Seen.push_back({Req.method, Req.path, Req.body,
                      Req.get_header_value("Authorization")});
      if (!Script.empty()) {
        Next = std::move(Script.front());
        Script.pop_front();
      }
    }
    if (!Next) {
      Res.status = 599;
      Res.set_content("no scripted response left", "text/plain");
      return;
    }
    Next(Req, Res);
  }

  httplib::Server Server;
  int Port = 0;
  std::thread Thread;
  mutable std::mutex Mutex;
  std::deque<Handler> Script;
  std::vector<SeenRequest> Seen;
};

/// A handler that answers with \p Status and a JSON body.
inline ScriptedServer::Handler
replyJson(int Status, nlohmann::json Body,
          std::vector<std::pair<std::string, std::string>> Headers = {}) {
  return [=](const httplib::Request &, httplib::Response &Res) {
    Res.status = Status;
    for (const auto &[Name, Value] : Headers)
      Res.set_header(Name, Value);
    Res.set_content(Body.dump(), "application/json");
  };
}

/// A handler that answers 200 with a raw text body.
inline ScriptedServer::Handler replyText(int Status, std::string Body) {
  return [=](const httplib::Request &, httplib::Response &Res) {
    Res.status = Status;
    Res.set_content(Body, "application/json");
  };
}

/// A chat completion body.
inline nlohmann::json completion(const std::string &Content,
                                 const std::string &FinishReason = "stop",
                                 int PromptTokens = 11, int CompletionTokens = 7) {
  return {{"id", "chatcmpl-1"},
          {"object", "chat.completion"},
          {"model", "test-model"},
          {"choices",
           {{{"index", 0},
             {"message", {{"role", "assistant"}, {"content", Content}}},
             {"finish_reason", FinishReason}}}},
          {"usage",
           {{"prompt_tokens", PromptTokens},
            {"completion_tokens", CompletionTokens},
            {"total_tokens", PromptTokens + CompletionTokens}}}};
}

/// A handler that streams \p Pieces as separate chunks, pausing between them
/// so the client receives them in separate reads.
inline ScriptedServer::Handler streamPieces(std::vector<std::string> Pieces) {
  return [=](const httplib::Request &, httplib::Response &Res) {
    Res.status = 200;
    Res.set_chunked_content_provider(
        "text/event-stream", [Pieces](size_t, httplib::DataSink &Sink) {
          for (const std::string &Piece : Pieces) {
            Sink.write(Piece.data(), Piece.size());
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
          Sink.done();
          return true;
        });
  };
}

} // namespace test
} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_UNITTESTS_AGENTS_SCRIPTEDSERVER_H
