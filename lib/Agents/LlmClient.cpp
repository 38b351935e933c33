//===- LlmClient.cpp - OpenAI-compatible chat completions over HTTP ------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/LlmClient.h"
#include "forgestencil/Agents/Redaction.h"
#include "forgestencil/Agents/RunLog.h"
#include "forgestencil/Agents/SseDecoder.h"
#include "forgestencil/Version.h"

#include <cstdint>
#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

namespace forgestencil {
namespace agents {

using json = nlohmann::json;
using std::chrono::milliseconds;

namespace {

/// A server answer body is quoted in messages up to this many characters.
constexpr size_t MaxQuotedBody = 400;

void initCurlOnce() {
  static std::once_flag Once;
  std::call_once(Once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string trim(std::string_view Text) {
  size_t Begin = 0, End = Text.size();
  while (Begin < End && std::isspace(static_cast<unsigned char>(Text[Begin])))
    ++Begin;
  while (End > Begin && std::isspace(static_cast<unsigned char>(Text[End - 1])))
    --End;
  return std::string(Text.substr(Begin, End - Begin));
}

std::string toLower(std::string_view Text) {
  std::string Out(Text);
  for (char &C : Out)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return Out;
}

bool isAllDigits(std::string_view Text) {
  return !Text.empty() && std::all_of(Text.begin(), Text.end(), [](char C) {
    return std::isdigit(static_cast<unsigned char>(C));
  });
}

std::string excerpt(std::string_view Text) {
  std::string Trimmed = trim(Text);
  if (Trimmed.size() <= MaxQuotedBody)
    return Trimmed;
  return Trimmed.substr(0, MaxQuotedBody) + "...";
}

/// The base URL with trailing slashes removed and `/v1` appended unless it
/// is already there.
std::string apiRoot(const std::string &BaseUrl) {
  std::string Root = BaseUrl;
  while (!Root.empty() && Root.back() == '/')
    Root.pop_back();
  static constexpr std::string_view Version = "/v1";
  if (Root.size() >= Version.size() &&
      Root.compare(Root.size() - Version.size(), Version.size(), Version) == 0)
    return Root;
  return Root + std::string(Version);
}

/// What one HTTP exchange produced.
struct HttpReply {
  CURLcode Transport = CURLE_OK;
  std::string TransportMessage;
  long Status = 0;
  std::string Body;
  std::optional<milliseconds> RetryAfter;
};

/// The state libcurl's callbacks share during one transfer.
struct Transfer {
  HttpReply Reply;
  SseDecoder *Sse = nullptr;
  milliseconds StallTimeout{0};
  std::chrono::steady_clock::time_point LastActivity;
  curl_off_t LastDownloaded = 0;
  curl_off_t LastUploaded = 0;
  bool Stalled = false;
};

/// Aborts a transfer that moved no byte for the stall timeout.
/// CURLOPT_LOW_SPEED_* cannot do this: libcurl averages the speed over a
/// window that includes the request upload, so a server that accepts the
/// request and then says nothing keeps the average above the limit.
int onProgress(void *User, curl_off_t, curl_off_t Downloaded, curl_off_t,
               curl_off_t Uploaded) {
  auto &T = *static_cast<Transfer *>(User);
  auto Now = std::chrono::steady_clock::now();
  if (Downloaded != T.LastDownloaded || Uploaded != T.LastUploaded) {
    T.LastDownloaded = Downloaded;
    T.LastUploaded = Uploaded;
    T.LastActivity = Now;
    return 0;
  }
  if (Now - T.LastActivity < T.StallTimeout)
    return 0;
  T.Stalled = true;
  return 1;
}

/// Parses the status line and `Retry-After` / `retry-after-ms`. A status
/// line starts a new response (after a redirect or a 100 Continue), so it
/// forgets what earlier headers said.
size_t onHeader(char *Data, size_t Size, size_t Count, void *User) {
  auto &T = *static_cast<Transfer *>(User);
  std::string_view Line(Data, Size * Count);
  if (Line.rfind("HTTP/", 0) == 0) {
    T.Reply.RetryAfter.reset();
    size_t Space = Line.find(' ');
    if (Space != std::string_view::npos)
      T.Reply.Status = std::strtol(std::string(Line.substr(Space + 1, 3)).c_str(),
                                   nullptr, 10);
    return Line.size();
  }
  size_t Colon = Line.find(':');
  if (Colon == std::string_view::npos)
    return Line.size();
  std::string Name = toLower(trim(Line.substr(0, Colon)));
  std::string Value = trim(Line.substr(Colon + 1));
  // Only the delta-seconds form is honoured; an HTTP date falls back to the
  // client's own backoff.
  if (Name == "retry-after" && isAllDigits(Value) && Value.size() < 10)
    T.Reply.RetryAfter = milliseconds(std::stol(Value) * 1000);
  else if (Name == "retry-after-ms" && isAllDigits(Value) && Value.size() < 12)
    T.Reply.RetryAfter = milliseconds(std::stol(Value));
  return Line.size();
}

size_t onBody(char *Data, size_t Size, size_t Count, void *User) {
  auto &T = *static_cast<Transfer *>(User);
  std::string_view Bytes(Data, Size * Count);
  T.Reply.Body.append(Bytes);
  // An error answer to a streaming request is a plain JSON body, not SSE.
  if (T.Sse && T.Reply.Status == 200)
    T.Sse->feed(Bytes);
  return Bytes.size();
}

struct CurlHandleDeleter {
  void operator()(CURL *Handle) const { curl_easy_cleanup(Handle); }
};
struct CurlListDeleter {
  void operator()(curl_slist *List) const { curl_slist_free_all(List); }
};

/// Performs one request. \p PostBody empty means GET.
HttpReply perform(const LlmConfig &Config, const std::string &Url,
                  const std::string *PostBody, SseDecoder *Sse) {
  initCurlOnce();
  Transfer T;
  T.Sse = Sse;
  T.StallTimeout = Config.StallTimeout;
  T.LastActivity = std::chrono::steady_clock::now();
  std::unique_ptr<CURL, CurlHandleDeleter> Handle(curl_easy_init());
  if (!Handle) {
    T.Reply.Transport = CURLE_FAILED_INIT;
    T.Reply.TransportMessage = "could not create a libcurl handle";
    return T.Reply;
  }
  CURL *H = Handle.get();

  curl_slist *RawHeaders = nullptr;
  RawHeaders = curl_slist_append(RawHeaders, "Content-Type: application/json");
  RawHeaders = curl_slist_append(
      RawHeaders, Sse ? "Accept: text/event-stream" : "Accept: application/json");
  // Large prompts would otherwise wait for a `100 Continue` first.
  RawHeaders = curl_slist_append(RawHeaders, "Expect:");
  if (!Config.ApiKey.empty())
    RawHeaders = curl_slist_append(
        RawHeaders, ("Authorization: Bearer " + Config.ApiKey).c_str());
  std::unique_ptr<curl_slist, CurlListDeleter> Headers(RawHeaders);

  char ErrorBuffer[CURL_ERROR_SIZE] = {0};
  static const std::string UserAgent =
      std::string("forgestencil/") + FORGESTENCIL_VERSION;
  curl_easy_setopt(H, CURLOPT_URL, Url.c_str());
  curl_easy_setopt(H, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(H, CURLOPT_HTTPHEADER, Headers.get());
  curl_easy_setopt(H, CURLOPT_USERAGENT, UserAgent.c_str());
  curl_easy_setopt(H, CURLOPT_ERRORBUFFER, ErrorBuffer);
  curl_easy_setopt(H, CURLOPT_NOSIGNAL, 1L);
  // Certificates are always checked: the request carries the API key.
  curl_easy_setopt(H, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(H, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(H, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(Config.ConnectTimeout.count()));
  curl_easy_setopt(H, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(Config.OverallTimeout.count()));
  curl_easy_setopt(H, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(H, CURLOPT_XFERINFOFUNCTION, onProgress);
  curl_easy_setopt(H, CURLOPT_XFERINFODATA, &T);
  curl_easy_setopt(H, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(H, CURLOPT_HEADERDATA, &T);
  curl_easy_setopt(H, CURLOPT_WRITEFUNCTION, onBody);
  curl_easy_setopt(H, CURLOPT_WRITEDATA, &T);
  if (PostBody) {
    curl_easy_setopt(H, CURLOPT_POST, 1L);
    curl_easy_setopt(H, CURLOPT_POSTFIELDS, PostBody->c_str());
    curl_easy_setopt(H, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(PostBody->size()));
  } else {
    curl_easy_setopt(H, CURLOPT_HTTPGET, 1L);
  }

  T.Reply.Transport = curl_easy_perform(H);
  if (T.Stalled) {
    T.Reply.Transport = CURLE_OPERATION_TIMEDOUT;
    T.Reply.TransportMessage =
        "the connection stalled: no data for " +
        std::to_string(Config.StallTimeout.count()) + " ms (stall timeout)";
    return T.Reply;
  }
  if (T.Reply.Transport != CURLE_OK) {
    T.Reply.TransportMessage = ErrorBuffer[0]
                                   ? std::string(ErrorBuffer)
                                   : curl_easy_strerror(T.Reply.Transport);
    return T.Reply;
  }
  curl_easy_getinfo(H, CURLINFO_RESPONSE_CODE, &T.Reply.Status);
  if (Sse)
    Sse->finish();
  return T.Reply;
}

/// Failures that a later attempt may not meet.
bool isRetryableTransport(CURLcode Code) {
  switch (Code) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_SEND_ERROR:
  case CURLE_RECV_ERROR:
  case CURLE_GOT_NOTHING:
  case CURLE_PARTIAL_FILE:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
    return true;
  default:
    return false;
  }
}

bool isRetryableStatus(long Status) {
  return Status == 429 || Status == 500 || Status == 502 || Status == 503 ||
         Status == 504;
}

/// The human part of an error body: OpenAI's `error.message`, a plain
/// `error` string (Ollama), FastAPI's `detail` / `message` (vLLM), or an
/// excerpt of the raw body.
std::string serverMessage(const std::string &Body) {
  json J = json::parse(Body, nullptr, /*allow_exceptions=*/false);
  if (J.is_object()) {
    if (J.contains("error")) {
      const json &E = J["error"];
      if (E.is_string())
        return E.get<std::string>();
      if (E.is_object() && E.contains("message") && E["message"].is_string())
        return E["message"].get<std::string>();
    }
    for (const char *Key : {"message", "detail"})
      if (J.contains(Key))
        return J[Key].is_string() ? J[Key].get<std::string>() : J[Key].dump();
  }
  return excerpt(Body);
}

/// A 429 that no wait will cure: the account is out of credit.
bool isQuotaExhausted(const std::string &Body) {
  json J = json::parse(Body, nullptr, false);
  if (J.is_object() && J.contains("error") && J["error"].is_object()) {
    const json &E = J["error"];
    for (const char *Key : {"code", "type"})
      if (E.contains(Key) && E[Key].is_string() &&
          E[Key].get<std::string>() == "insufficient_quota")
        return true;
  }
  return Body.find("insufficient_quota") != std::string::npos;
}

std::optional<TokenUsage> parseUsage(const json &J) {
  if (!J.is_object() || !J.contains("usage") || !J["usage"].is_object())
    return std::nullopt;
  const json &U = J["usage"];
  TokenUsage Usage;
  Usage.PromptTokens = U.value("prompt_tokens", std::int64_t(0));
  Usage.CompletionTokens = U.value("completion_tokens", std::int64_t(0));
  Usage.TotalTokens =
      U.value("total_tokens", Usage.PromptTokens + Usage.CompletionTokens);
  return Usage;
}

std::string stringOr(const json &Object, const char *Key) {
  if (Object.is_object() && Object.contains(Key) && Object[Key].is_string())
    return Object[Key].get<std::string>();
  return std::string();
}

void setFinishReason(ChatResponse &Response, std::string Reason) {
  Response.FinishReason = std::move(Reason);
  Response.Status = Response.FinishReason == "length"
                        ? CompletionStatus::Truncated
                        : CompletionStatus::Complete;
}

/// Reads a whole (non-streamed) chat completion body.
Result<ChatResponse> parseCompletion(const std::string &Body) {
  json J = json::parse(Body, nullptr, false);
  if (J.is_discarded())
    return makeError("the response is not valid JSON: " + excerpt(Body));
  if (J.is_object() && J.contains("error"))
    return makeError("the server answered with an error: " + serverMessage(Body));
  if (!J.is_object() || !J.contains("choices") || !J["choices"].is_array() ||
      J["choices"].empty())
    return makeError("the response has no `choices`: " + excerpt(Body));
  const json &Choice = J["choices"][0];
  if (!Choice.is_object() || !Choice.contains("message") ||
      !Choice["message"].is_object())
    return makeError("the first choice has no `message`: " + excerpt(Body));
  const json &Message = Choice["message"];
  ChatResponse Response;
  Response.Content = stringOr(Message, "content");
  Response.Reasoning = stringOr(Message, "reasoning_content");
  if (Response.Reasoning.empty())
    Response.Reasoning = stringOr(Message, "reasoning");
  setFinishReason(Response, stringOr(Choice, "finish_reason"));
  Response.Usage = parseUsage(J);
  Response.ModelReported = stringOr(J, "model");
  return Response;
}

/// Assembles a streamed completion from its events.
class StreamAssembler {
public:
  explicit StreamAssembler(const std::function<void(const std::string &)> &OnDelta)
      : OnDelta(OnDelta) {}

  void onEvent(std::string_view Data) {
    if (!Problem.empty())
      return;
    json J = json::parse(Data, nullptr, false);
    if (!J.is_object()) {
      Problem = "a stream event is not valid JSON: " + excerpt(Data);
      return;
    }
    if (J.contains("error")) {
      Problem = "the server reported an error mid-stream: " +
                serverMessage(std::string(Data));
      return;
    }
    if (auto Usage = parseUsage(J))
      Response.Usage = Usage;
    if (Response.ModelReported.empty())
      Response.ModelReported = stringOr(J, "model");
    if (!J.contains("choices") || !J["choices"].is_array() || J["choices"].empty())
      return; // The usage-only chunk that ends an include_usage stream.
    const json &Choice = J["choices"][0];
    const json Delta = Choice.is_object() ? Choice.value("delta", json::object())
                                          : json::object();
    std::string Content = stringOr(Delta, "content");
    if (!Content.empty()) {
      Response.Content += Content;
      if (OnDelta)
        OnDelta(Content);
    }
    Response.Reasoning += stringOr(Delta, "reasoning_content");
    Response.Reasoning += stringOr(Delta, "reasoning");
    std::string Finish = stringOr(Choice, "finish_reason");
    if (!Finish.empty())
      setFinishReason(Response, Finish);
  }

  ChatResponse Response;
  std::string Problem;

private:
  const std::function<void(const std::string &)> &OnDelta;
};

/// How one attempt ended.
struct AttemptOutcome {
  std::optional<ChatResponse> Success;
  std::string Problem; ///< Without the "on attempt N" part.
  bool Retryable = false;
  std::optional<milliseconds> RetryAfter;
  long Status = 0;
};

} // namespace

Result<LlmConfig> LlmConfig::fromEnvironment(
    const std::function<const char *(const char *)> &GetEnv) {
  auto Get = [&](const char *Name) -> std::string {
    const char *Value = GetEnv ? GetEnv(Name) : std::getenv(Name);
    return Value ? std::string(Value) : std::string();
  };
  LlmConfig Config;
  if (std::string Base = Get("FS_LLM_BASE_URL"); !Base.empty())
    Config.BaseUrl = Base;
  Config.Model = Get("FS_LLM_MODEL");
  if (Config.Model.empty())
    return makeError("FS_LLM_MODEL is not set: name the model the server "
                     "should use (for example FS_LLM_MODEL=gpt-4o)");
  Config.ApiKey = Get("FS_LLM_API_KEY");
  if (Config.ApiKey.empty())
    Config.ApiKey = Get("OPENAI_API_KEY");
  return Config;
}

std::string LlmConfig::chatCompletionsUrl() const {
  return apiRoot(BaseUrl) + "/chat/completions";
}

std::string LlmConfig::modelsUrl() const { return apiRoot(BaseUrl) + "/models"; }

LlmClient::LlmClient(LlmConfig Config)
    : Config(std::move(Config)),
      Sleep([](milliseconds Delay) { std::this_thread::sleep_for(Delay); }),
      Jitter(std::random_device{}()) {}

json LlmClient::buildRequestBody(const ChatRequest &Request) const {
  json Body;
  Body["model"] = Config.Model;
  json Messages = json::array();
  for (const ChatMessage &M : Request.Messages)
    Messages.push_back({{"role", M.Role}, {"content", M.Content}});
  Body["messages"] = std::move(Messages);
  Body["stream"] = Config.Stream;
  if (Config.Stream)
    Body["stream_options"] = {{"include_usage", true}};
  if (auto T = Request.Temperature ? Request.Temperature : Config.Temperature)
    Body["temperature"] = *T;
  if (auto N = Request.MaxTokens ? Request.MaxTokens : Config.MaxTokens)
    Body["max_tokens"] = *N;
  return Body;
}

milliseconds LlmClient::backoffBeforeRetry(int Retry) {
  double Base = static_cast<double>(Config.InitialBackoff.count());
  for (int I = 1; I < Retry && Base < Config.MaxBackoff.count(); ++I)
    Base *= 2;
  Base = std::min(Base, static_cast<double>(Config.MaxBackoff.count()));
  // Jitter spreads out clients that failed together so they do not retry in
  // lockstep.
  std::uniform_real_distribution<double> Factor(0.5, 1.0);
  return milliseconds(static_cast<long long>(Base * Factor(Jitter)));
}

namespace {

AttemptOutcome runAttempt(const LlmConfig &Config, const std::string &Url,
                          const std::string &Body, const ChatRequest &Request) {
  AttemptOutcome Outcome;
  StreamAssembler Assembler(Request.OnDelta);
  SseDecoder Sse([&](std::string_view Data) { Assembler.onEvent(Data); });
  HttpReply Reply = perform(Config, Url, &Body, Config.Stream ? &Sse : nullptr);
  Outcome.Status = Reply.Status;
  Outcome.RetryAfter = Reply.RetryAfter;

  if (Reply.Transport != CURLE_OK) {
    Outcome.Problem = "could not complete the request to " + Url + ": " +
                      Reply.TransportMessage;
    Outcome.Retryable = isRetryableTransport(Reply.Transport);
    return Outcome;
  }
  if (Reply.Status != 200) {
    Outcome.Problem = "HTTP " + std::to_string(Reply.Status) + " from " + Url +
                      ": " + serverMessage(Reply.Body);
    bool Quota = Reply.Status == 429 && isQuotaExhausted(Reply.Body);
    if (Quota)
      Outcome.Problem += " (quota exhausted; retrying will not help)";
    Outcome.Retryable = isRetryableStatus(Reply.Status) && !Quota;
    return Outcome;
  }
  if (!Config.Stream) {
    Result<ChatResponse> Parsed = parseCompletion(Reply.Body);
    if (!Parsed) {
      Outcome.Problem = "bad answer from " + Url + ": " + Parsed.error();
      return Outcome;
    }
    Outcome.Success = std::move(*Parsed);
    return Outcome;
  }
  if (!Assembler.Problem.empty()) {
    Outcome.Problem = "bad stream from " + Url + ": " + Assembler.Problem;
    return Outcome;
  }
  if (!Sse.sawDone() && Assembler.Response.FinishReason.empty()) {
    Outcome.Problem = "the stream from " + Url +
                      " ended before the model finished its answer";
    Outcome.Retryable = true;
    return Outcome;
  }
  Outcome.Success = std::move(Assembler.Response);
  return Outcome;
}

} // namespace

Result<ChatResponse> LlmClient::chat(const ChatRequest &Request) {
  const std::string Url = Config.chatCompletionsUrl();
  const json RequestBody = buildRequestBody(Request);
  const std::string Body = RequestBody.dump();
  auto Record = [&](std::string_view Kind, json Payload) {
    if (Log)
      (void)Log->record(Kind, Payload);
  };
  Record("request", {{"url", Url}, {"body", RequestBody}});

  const int MaxAttempts = std::max(1, Config.MaxAttempts);
  std::vector<std::string> EarlierFailures;
  for (int Attempt = 1;; ++Attempt) {
    AttemptOutcome Outcome = runAttempt(Config, Url, Body, Request);
    if (Outcome.Success) {
      ChatResponse &Response = *Outcome.Success;
      Response.Attempts = Attempt;
      Response.HttpStatus = Outcome.Status;
      json Usage = nullptr;
      if (Response.Usage)
        Usage = {{"prompt_tokens", Response.Usage->PromptTokens},
                 {"completion_tokens", Response.Usage->CompletionTokens},
                 {"total_tokens", Response.Usage->TotalTokens}};
      Record("response", {{"url", Url},
                          {"attempts", Attempt},
                          {"http_status", Outcome.Status},
                          {"model", Response.ModelReported},
                          {"finish_reason", Response.FinishReason},
                          {"truncated", Response.truncated()},
                          {"usage", Usage},
                          {"reasoning", Response.Reasoning},
                          {"content", Response.Content}});
      return std::move(Response);
    }

    std::string Message = "chat completion failed on attempt " +
                          std::to_string(Attempt) + " of " +
                          std::to_string(MaxAttempts) + ": " + Outcome.Problem;
    bool WillRetry = Outcome.Retryable && Attempt < MaxAttempts;
    if (!WillRetry && !EarlierFailures.empty()) {
      Message += " (earlier attempts:";
      for (const std::string &Failure : EarlierFailures)
        Message += " " + Failure + ";";
      Message.back() = ')';
    }
    Message = redactSecret(Message, Config.ApiKey);
    Record("error", {{"url", Url},
                     {"attempt", Attempt},
                     {"http_status", Outcome.Status},
                     {"will_retry", WillRetry},
                     {"message", Message}});
    if (!WillRetry)
      return makeError(std::move(Message));

    EarlierFailures.push_back(Outcome.Status ? "HTTP " + std::to_string(Outcome.Status)
                                             : std::string("transport error"));
    milliseconds Delay = Outcome.RetryAfter
                             ? std::min(*Outcome.RetryAfter, Config.MaxRetryAfter)
                             : backoffBeforeRetry(Attempt);
    Sleep(Delay);
  }
}

Result<void> LlmClient::checkReachable() {
  if (Config.Model.empty())
    return makeError("no model is configured: set FS_LLM_MODEL");
  const std::string Url = Config.modelsUrl();
  if (Config.ApiKey.empty() && Url.find("api.openai.com") != std::string::npos)
    return makeError("no API key is set for " + Url +
                     ": set FS_LLM_API_KEY (or OPENAI_API_KEY)");

  LlmConfig Quick = Config;
  Quick.OverallTimeout = std::min(Config.OverallTimeout, milliseconds(30000));
  Quick.StallTimeout = std::min(Config.StallTimeout, milliseconds(15000));
  HttpReply Reply = perform(Quick, Url, /*PostBody=*/nullptr, /*Sse=*/nullptr);
  if (Reply.Transport != CURLE_OK)
    return makeError(redactSecret(
        "cannot reach the model server at " + Url + ": " +
            Reply.TransportMessage + " (check FS_LLM_BASE_URL)",
        Config.ApiKey));
  if (Reply.Status == 401 || Reply.Status == 403) {
    std::string Hint = Config.ApiKey.empty()
                           ? "no API key is set: set FS_LLM_API_KEY (or "
                             "OPENAI_API_KEY)"
                           : "check FS_LLM_API_KEY (or OPENAI_API_KEY)";
    return makeError(redactSecret("the model server at " + Url +
                                      " refused the credentials (HTTP " +
                                      std::to_string(Reply.Status) + ": " +
                                      serverMessage(Reply.Body) + "); " + Hint,
                                  Config.ApiKey));
  }
  // Some servers do not list models; any other answer still proves that
  // the server is there and accepted the key.
  if (Reply.Status >= 500)
    return makeError(redactSecret("the model server at " + Url + " failed (HTTP " +
                                      std::to_string(Reply.Status) + ": " +
                                      serverMessage(Reply.Body) + ")",
                                  Config.ApiKey));
  return Result<void>::success();
}

} // namespace agents
} // namespace forgestencil
