//===- LlmClient.h - OpenAI-compatible chat completions over HTTP --------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A client for `POST {base}/v1/chat/completions`, the protocol spoken by
/// OpenAI, vLLM, the llama.cpp server and Ollama. It is built on libcurl with
/// TLS verification always on, bounded by a connect timeout, a stall timeout
/// and an overall timeout, and it retries transient failures with jittered
/// exponential backoff that honours `Retry-After`.
///
/// Failures are values: chat() returns a Result whose error says which URL,
/// which HTTP status, what the server said and on which attempt. The API key
/// is redacted from every such message and from the audit transcript.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_AGENTS_LLMCLIENT_H
#define FORGESTENCIL_AGENTS_LLMCLIENT_H

#include "forgestencil/Agents/Result.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace forgestencil {
namespace agents {

class RunLog;

/// Where the model lives and how patient the client is with it. Filled from
/// the environment by fromEnvironment() or field by field by a program.
struct LlmConfig {
  /// Server root, with or without a trailing `/v1`.
  std::string BaseUrl = "https://api.openai.com/v1";
  std::string Model;
  /// Sent as `Authorization: Bearer ...`; empty for local servers that take
  /// no key. Never printed.
  std::string ApiKey;

  std::chrono::milliseconds ConnectTimeout{10000};
  /// An attempt during which no byte moves in either direction for this long
  /// is abandoned as stalled. It is checked from libcurl's progress callback,
  /// which runs about once a second when idle, so it fires up to a second
  /// late.
  std::chrono::milliseconds StallTimeout{60000};
  /// Bound on one attempt, from connect to the last byte.
  std::chrono::milliseconds OverallTimeout{600000};

  /// Attempts per chat() call, the first one included.
  int MaxAttempts = 4;
  /// Backoff before retry N (1-based) is InitialBackoff * 2^(N-1), capped at
  /// MaxBackoff, then scaled by a random factor in [0.5, 1].
  std::chrono::milliseconds InitialBackoff{1000};
  std::chrono::milliseconds MaxBackoff{30000};
  /// A server's `Retry-After` is honoured up to this much.
  std::chrono::milliseconds MaxRetryAfter{120000};

  /// Ask for a Server-Sent Events stream rather than one JSON body.
  bool Stream = false;
  std::optional<double> Temperature;
  std::optional<int> MaxTokens;

  /// Reads FS_LLM_BASE_URL, FS_LLM_MODEL and FS_LLM_API_KEY (falling back to
  /// OPENAI_API_KEY) through \p GetEnv. Fails when no model is named.
  static Result<LlmConfig>
  fromEnvironment(const std::function<const char *(const char *)> &GetEnv =
                      nullptr);

  /// The chat completions endpoint: the base URL without a trailing slash,
  /// plus `/v1` unless it already ends in it, plus `/chat/completions`.
  std::string chatCompletionsUrl() const;
  /// The model listing endpoint, `.../v1/models`, used by checkReachable().
  std::string modelsUrl() const;
};

/// One message of a conversation.
struct ChatMessage {
  std::string Role; ///< "system", "user" or "assistant".
  std::string Content;
};

/// A conversation to send. Per-request settings override the config's.
struct ChatRequest {
  std::vector<ChatMessage> Messages;
  std::optional<double> Temperature;
  std::optional<int> MaxTokens;
  /// Called with each piece of content as a stream delivers it.
  std::function<void(const std::string &Delta)> OnDelta;
};

/// Token counts the server reported, when it reported them.
struct TokenUsage {
  std::int64_t PromptTokens = 0;
  std::int64_t CompletionTokens = 0;
  std::int64_t TotalTokens = 0;
};

/// Whether the model finished its answer.
enum class CompletionStatus {
  Complete,
  /// `finish_reason == "length"`: the answer was cut at the token limit. The
  /// content is whatever arrived; the caller decides whether to ask again.
  Truncated,
};

/// A successful chat completion.
struct ChatResponse {
  std::string Content;
  /// Reasoning the server returned separately from the answer
  /// (`reasoning_content` or `reasoning`), if any.
  std::string Reasoning;
  std::string FinishReason;
  CompletionStatus Status = CompletionStatus::Complete;
  std::optional<TokenUsage> Usage;
  std::string ModelReported; ///< The `model` field of the response.
  int Attempts = 0;          ///< How many HTTP requests it took.
  long HttpStatus = 0;

  bool truncated() const { return Status == CompletionStatus::Truncated; }
};

/// Talks to one OpenAI-compatible server.
class LlmClient {
public:
  /// Sleeps between retries; tests inject one that records the delay.
  using SleepFunction = std::function<void(std::chrono::milliseconds)>;

  explicit LlmClient(LlmConfig Config);

  /// Replaces the real sleep between retries.
  void setSleepFunction(SleepFunction Sleep) { this->Sleep = std::move(Sleep); }
  /// Seeds the backoff jitter, for reproducible tests.
  void setJitterSeed(std::uint32_t Seed) { Jitter.seed(Seed); }
  /// Records every request, response and failure of chat() in \p Log (which
  /// must outlive the client). Null stops recording.
  void setRunLog(RunLog *Log) { this->Log = Log; }

  /// Sends the conversation and returns the model's answer, retrying
  /// transient failures as the config allows.
  Result<ChatResponse> chat(const ChatRequest &Request);

  /// One quick `GET .../v1/models` without retries, so a command can fail at
  /// start with a clear message when the key is missing or wrong or the
  /// server cannot be reached.
  Result<void> checkReachable();

  /// The JSON body chat() sends for \p Request.
  nlohmann::json buildRequestBody(const ChatRequest &Request) const;

  const LlmConfig &config() const { return Config; }

private:
  std::chrono::milliseconds backoffBeforeRetry(int Retry);

  LlmConfig Config;
  SleepFunction Sleep;
  std::mt19937 Jitter;
  RunLog *Log = nullptr;
};

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_AGENTS_LLMCLIENT_H
