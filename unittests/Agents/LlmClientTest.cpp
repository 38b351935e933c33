//===- LlmClientTest.cpp - The chat client against a real local server ---===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "ScriptedServer.h"
#include "TempDir.h"

#include "forgestencil/Agents/LlmClient.h"
#include "forgestencil/Agents/ResponseParsing.h"
#include "forgestencil/Agents/RunLog.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

using namespace forgestencil::agents;
using namespace forgestencil::agents::test;
using nlohmann::json;
using std::chrono::milliseconds;

namespace {

constexpr const char *SecretKey = "sk-test-Zq9SecretKeyValue4711";

class LlmClientTest : public ::testing::Test {
protected:
  LlmConfig config(bool WithV1 = true) {
    LlmConfig Config;
    Config.BaseUrl = Server.root() + (WithV1 ? "/v1" : "");
    Config.Model = "test-model";
    Config.ApiKey = SecretKey;
    Config.ConnectTimeout = milliseconds(2000);
    Config.StallTimeout = milliseconds(5000);
    Config.OverallTimeout = milliseconds(10000);
    Config.MaxAttempts = 4;
    return Config;
  }

  /// A client whose retries record their delay instead of sleeping.
  LlmClient client(LlmConfig Config) {
    LlmClient Client(std::move(Config));
    Client.setSleepFunction([this](milliseconds Delay) { Sleeps.push_back(Delay); });
    Client.setJitterSeed(42);
    return Client;
  }

  static ChatRequest hello() {
    ChatRequest Request;
    Request.Messages = {{"system", "You write CUDA."}, {"user", "Hello"}};
    return Request;
  }

  ScriptedServer Server;
  std::vector<milliseconds> Sleeps;
};

TEST_F(LlmClientTest, Success) {
  Server.then(replyJson(200, completion("Hi there")));
  LlmClient Client = client(config());
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_TRUE(Response) << Response.error();
  EXPECT_EQ(Response->Content, "Hi there");
  EXPECT_EQ(Response->FinishReason, "stop");
  EXPECT_FALSE(Response->truncated());
  EXPECT_EQ(Response->Attempts, 1);
  ASSERT_TRUE(Response->Usage);
  EXPECT_EQ(Response->Usage->PromptTokens, 11);
  EXPECT_EQ(Response->Usage->CompletionTokens, 7);
  EXPECT_TRUE(Sleeps.empty());

  std::vector<SeenRequest> Seen = Server.requests();
  ASSERT_EQ(Seen.size(), 1u);
  EXPECT_EQ(Seen[0].Method, "POST");
  EXPECT_EQ(Seen[0].Path, "/v1/chat/completions");
  EXPECT_EQ(Seen[0].Authorization, std::string("Bearer ") + SecretKey);
  json Body = json::parse(Seen[0].Body);
  EXPECT_EQ(Body["model"], "test-model");
  EXPECT_EQ(Body["stream"], false);
  ASSERT_EQ(Body["messages"].size(), 2u);
  EXPECT_EQ(Body["messages"][1]["role"], "user");
  EXPECT_EQ(Body["messages"][1]["content"], "Hello");
}

TEST_F(LlmClientTest, BaseUrlWithAndWithoutV1ReachTheSameEndpoint) {
  for (std::string Suffix : {"", "/", "/v1", "/v1/"}) {
    Server.then(replyJson(200, completion("ok")));
    LlmConfig Config = config(false);
    Config.BaseUrl += Suffix;
    LlmClient Client = client(Config);
    Result<ChatResponse> Response = Client.chat(hello());
    ASSERT_TRUE(Response) << "base suffix '" << Suffix << "': " << Response.error();
  }
  for (const SeenRequest &Seen : Server.requests())
    EXPECT_EQ(Seen.Path, "/v1/chat/completions");
}

TEST_F(LlmClientTest, NoKeyMeansNoAuthorizationHeader) {
  Server.then(replyJson(200, completion("ok")));
  LlmConfig Config = config();
  Config.ApiKey.clear();
  LlmClient Client = client(Config);
  ASSERT_TRUE(Client.chat(hello()));
  EXPECT_EQ(Server.requests().at(0).Authorization, "");
}

TEST_F(LlmClientTest, StreamedSuccessWithEventsSplitAcrossReads) {
  auto Event = [](const json &Chunk) { return "data: " + Chunk.dump() + "\n\n"; };
  auto Delta = [](const std::string &Text) {
    return json{{"model", "test-model"},
                {"choices", {{{"index", 0}, {"delta", {{"content", Text}}},
                              {"finish_reason", nullptr}}}}};
  };
  std::string Stream = ": keep-alive\n\n" + Event(Delta("```cuda\n__global")) +
                       Event(Delta("__ void k() {}\n")) + Event(Delta("```")) +
                       Event({{"choices", {{{"index", 0}, {"delta", json::object()},
                                            {"finish_reason", "stop"}}}}}) +
                       Event({{"choices", json::array()},
                              {"usage", {{"prompt_tokens", 30},
                                         {"completion_tokens", 12},
                                         {"total_tokens", 42}}}}) +
                       "data: [DONE]\n\n";
  // Cut the stream mid-line, mid-JSON and between "\n" and "\n".
  std::vector<std::string> Pieces;
  for (size_t Cut : {7, 31, 64, 65, 120, 175}) {
    size_t Begin = 0;
    for (const std::string &P : Pieces)
      Begin += P.size();
    Pieces.push_back(Stream.substr(Begin, Cut - Begin));
  }
  size_t Sent = 0;
  for (const std::string &P : Pieces)
    Sent += P.size();
  Pieces.push_back(Stream.substr(Sent));
  Server.then(streamPieces(Pieces));

  LlmConfig Config = config();
  Config.Stream = true;
  LlmClient Client = client(Config);
  ChatRequest Request = hello();
  std::vector<std::string> Deltas;
  Request.OnDelta = [&](const std::string &D) { Deltas.push_back(D); };
  Result<ChatResponse> Response = Client.chat(Request);
  ASSERT_TRUE(Response) << Response.error();
  EXPECT_EQ(Response->Content, "```cuda\n__global__ void k() {}\n```");
  EXPECT_EQ(Deltas.size(), 3u);
  EXPECT_EQ(Response->FinishReason, "stop");
  ASSERT_TRUE(Response->Usage);
  EXPECT_EQ(Response->Usage->CompletionTokens, 12);

  json Body = json::parse(Server.requests().at(0).Body);
  EXPECT_EQ(Body["stream"], true);
  Result<std::string> Code = extractSingleCudaBlock(Response->Content);
  ASSERT_TRUE(Code) << Code.error();
  EXPECT_EQ(*Code, "__global__ void k() {}\n");
}

TEST_F(LlmClientTest, StreamThatEndsEarlyIsAnError) {
  Server.then(streamPieces(
      {"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n"}));
  LlmConfig Config = config();
  Config.Stream = true;
  Config.MaxAttempts = 1;
  LlmClient Client = client(Config);
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_FALSE(Response);
  EXPECT_NE(Response.error().find("ended before the model finished"),
            std::string::npos)
      << Response.error();
}

TEST_F(LlmClientTest, RetryAfterIsHonoured) {
  Server.then(replyJson(429, {{"error", {{"message", "Rate limit reached"},
                                         {"type", "requests"}}}},
                        {{"Retry-After", "3"}}));
  Server.then(replyJson(200, completion("after the wait")));
  LlmClient Client = client(config());
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_TRUE(Response) << Response.error();
  EXPECT_EQ(Response->Content, "after the wait");
  EXPECT_EQ(Response->Attempts, 2);
  ASSERT_EQ(Sleeps.size(), 1u);
  EXPECT_EQ(Sleeps[0], milliseconds(3000));
}

TEST_F(LlmClientTest, RetryAfterIsCapped) {
  Server.then(replyJson(503, {{"error", "overloaded"}}, {{"Retry-After", "86400"}}));
  Server.then(replyJson(200, completion("ok")));
  LlmConfig Config = config();
  Config.MaxRetryAfter = milliseconds(5000);
  LlmClient Client = client(Config);
  ASSERT_TRUE(Client.chat(hello()));
  ASSERT_EQ(Sleeps.size(), 1u);
  EXPECT_EQ(Sleeps[0], milliseconds(5000));
}

TEST_F(LlmClientTest, ServerErrorsAreRetriedWithJitteredExponentialBackoff) {
  Server.then(replyJson(500, {{"error", {{"message", "internal"}}}}));
  Server.then(replyJson(502, {{"error", {{"message", "bad gateway"}}}}));
  Server.then(replyJson(200, completion("third time lucky")));
  LlmConfig Config = config();
  Config.InitialBackoff = milliseconds(1000);
  LlmClient Client = client(Config);
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_TRUE(Response) << Response.error();
  EXPECT_EQ(Response->Attempts, 3);
  ASSERT_EQ(Sleeps.size(), 2u);
  EXPECT_GE(Sleeps[0], milliseconds(500));
  EXPECT_LE(Sleeps[0], milliseconds(1000));
  EXPECT_GE(Sleeps[1], milliseconds(1000));
  EXPECT_LE(Sleeps[1], milliseconds(2000));
  EXPECT_EQ(Server.requests().size(), 3u);
}

TEST_F(LlmClientTest, GivesUpAfterTheLastAttemptAndSaysSo) {
  for (int I = 0; I < 3; ++I)
    Server.then(replyJson(503, {{"error", {{"message", "model is loading"}}}}));
  LlmConfig Config = config();
  Config.MaxAttempts = 3;
  LlmClient Client = client(Config);
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_FALSE(Response);
  EXPECT_NE(Response.error().find("attempt 3 of 3"), std::string::npos)
      << Response.error();
  EXPECT_NE(Response.error().find("HTTP 503"), std::string::npos);
  EXPECT_NE(Response.error().find("model is loading"), std::string::npos);
  EXPECT_EQ(Sleeps.size(), 2u);
}

TEST_F(LlmClientTest, UnauthorizedIsNotRetried) {
  Server.then(replyJson(401, {{"error", {{"message", "Invalid authentication"},
                                         {"code", "invalid_api_key"}}}}));
  Server.then(replyJson(200, completion("must not be reached")));
  LlmClient Client = client(config());
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_FALSE(Response);
  EXPECT_NE(Response.error().find("HTTP 401"), std::string::npos) << Response.error();
  EXPECT_NE(Response.error().find("Invalid authentication"), std::string::npos);
  EXPECT_NE(Response.error().find("attempt 1 of 4"), std::string::npos);
  EXPECT_EQ(Server.requests().size(), 1u);
  EXPECT_TRUE(Sleeps.empty());
}

TEST_F(LlmClientTest, BadRequestIsNotRetried) {
  Server.then(replyJson(400, {{"error", {{"message", "maximum context length"}}}}));
  LlmClient Client = client(config());
  ASSERT_FALSE(Client.chat(hello()));
  EXPECT_EQ(Server.requests().size(), 1u);
}

TEST_F(LlmClientTest, InsufficientQuotaIsNotRetried) {
  Server.then(replyJson(429, {{"error", {{"message", "You exceeded your current quota"},
                                         {"type", "insufficient_quota"},
                                         {"code", "insufficient_quota"}}}},
                        {{"Retry-After", "1"}}));
  Server.then(replyJson(200, completion("must not be reached")));
  LlmClient Client = client(config());
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_FALSE(Response);
  EXPECT_NE(Response.error().find("quota"), std::string::npos) << Response.error();
  EXPECT_EQ(Server.requests().size(), 1u);
  EXPECT_TRUE(Sleeps.empty());
}

TEST_F(LlmClientTest, MalformedJsonIsAnError) {
  Server.then(replyText(200, "{\"choices\": [ {\"message\": "));
  LlmClient Client = client(config());
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_FALSE(Response);
  EXPECT_NE(Response.error().find("not valid JSON"), std::string::npos)
      << Response.error();
}

TEST_F(LlmClientTest, ResponseWithoutChoicesIsAnError) {
  Server.then(replyJson(200, {{"id", "x"}, {"choices", json::array()}}));
  LlmClient Client = client(config());
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_FALSE(Response);
  EXPECT_NE(Response.error().find("no `choices`"), std::string::npos);
}

TEST_F(LlmClientTest, LengthFinishIsReportedAsTruncated) {
  Server.then(replyJson(200, completion("```cuda\n__global__ void k(", "length")));
  LlmClient Client = client(config());
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_TRUE(Response) << Response.error();
  EXPECT_TRUE(Response->truncated());
  EXPECT_EQ(Response->Status, CompletionStatus::Truncated);
  EXPECT_FALSE(extractSingleCudaBlock(Response->Content));
}

TEST_F(LlmClientTest, ReasoningFieldAndThinkTextAreKeptOutOfTheCode) {
  std::string Content = "<think>Maybe\n```cuda\n__global__ void wrong() {}\n```\n"
                        "no.</think>\nHere it is:\n```cuda\n__global__ void right() {}\n```\n";
  json Body = completion(Content);
  Body["choices"][0]["message"]["reasoning_content"] = "step by step";
  Server.then(replyJson(200, Body));
  LlmClient Client = client(config());
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_TRUE(Response) << Response.error();
  EXPECT_EQ(Response->Reasoning, "step by step");
  Result<std::string> Code = extractSingleCudaBlock(Response->Content);
  ASSERT_TRUE(Code) << Code.error();
  EXPECT_EQ(*Code, "__global__ void right() {}\n");
}

TEST_F(LlmClientTest, StalledConnectionHitsTheStallTimeout) {
  Server.then([this](const httplib::Request &, httplib::Response &Res) {
    // Say nothing for longer than the client's patience.
    auto Until = std::chrono::steady_clock::now() + std::chrono::seconds(4);
    while (!Server.Stopping && std::chrono::steady_clock::now() < Until)
      std::this_thread::sleep_for(milliseconds(10));
    Res.set_content(completion("too late").dump(), "application/json");
  });
  LlmConfig Config = config();
  Config.StallTimeout = milliseconds(1000);
  Config.OverallTimeout = milliseconds(30000);
  Config.MaxAttempts = 1;
  LlmClient Client = client(Config);
  auto Start = std::chrono::steady_clock::now();
  Result<ChatResponse> Response = Client.chat(hello());
  auto Elapsed = std::chrono::steady_clock::now() - Start;
  ASSERT_FALSE(Response);
  EXPECT_LT(Elapsed, std::chrono::milliseconds(3500));
  EXPECT_NE(Response.error().find("stalled"), std::string::npos) << Response.error();
}

TEST_F(LlmClientTest, OverallTimeoutBoundsAnAttempt) {
  Server.then([this](const httplib::Request &, httplib::Response &Res) {
    auto Until = std::chrono::steady_clock::now() + std::chrono::seconds(4);
    while (!Server.Stopping && std::chrono::steady_clock::now() < Until)
      std::this_thread::sleep_for(milliseconds(10));
  });
  LlmConfig Config = config();
  Config.OverallTimeout = milliseconds(500);
  Config.MaxAttempts = 1;
  LlmClient Client = client(Config);
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_FALSE(Response);
  EXPECT_NE(Response.error().find("timed out"), std::string::npos) << Response.error();
}

TEST_F(LlmClientTest, KeyNeverAppearsInErrorsOrLogs) {
  TempDir Dir;
  Result<RunLog> Log = RunLog::open(Dir.path() + "/run", SecretKey);
  ASSERT_TRUE(Log) << Log.error();
  // A server that echoes the key and the Authorization header back.
  Server.then([](const httplib::Request &Req, httplib::Response &Res) {
    Res.status = 401;
    json Body = {{"error",
                  {{"message", std::string("Incorrect API key provided: ") + SecretKey},
                   {"header", Req.get_header_value("Authorization")}}}};
    Res.set_content(Body.dump(), "application/json");
  });
  LlmClient Client = client(config());
  Client.setRunLog(&*Log);
  Result<ChatResponse> Response = Client.chat(hello());
  ASSERT_FALSE(Response);
  EXPECT_EQ(Response.error().find(SecretKey), std::string::npos) << Response.error();
  EXPECT_NE(Response.error().find("[REDACTED]"), std::string::npos);
  // The key was really sent.
  EXPECT_EQ(Server.requests().at(0).Authorization, std::string("Bearer ") + SecretKey);

  std::vector<std::string> Files = Dir.filesUnder("run");
  ASSERT_EQ(Files.size(), 2u); // request, error
  for (const std::string &File : Files) {
    std::string Text = Dir.read("run/" + File);
    EXPECT_EQ(Text.find(SecretKey), std::string::npos) << File << ":\n" << Text;
    EXPECT_EQ(Text.find("Bearer sk-"), std::string::npos) << File;
  }
  EXPECT_EQ(Files[0], "0001-request.json");
  EXPECT_EQ(Files[1], "0002-error.json");
}

TEST_F(LlmClientTest, RunLogRecordsRequestAndResponse) {
  TempDir Dir;
  Result<RunLog> Log = RunLog::open(Dir.path(), SecretKey);
  ASSERT_TRUE(Log);
  Server.then(replyJson(500, {{"error", "transient"}}));
  Server.then(replyJson(200, completion("fine")));
  LlmClient Client = client(config());
  Client.setRunLog(&*Log);
  ASSERT_TRUE(Client.chat(hello()));
  std::vector<std::string> Files = Dir.filesUnder("");
  ASSERT_EQ(Files.size(), 3u);
  EXPECT_EQ(Files[0], "0001-request.json");
  EXPECT_EQ(Files[1], "0002-error.json");
  EXPECT_EQ(Files[2], "0003-response.json");
  json Response = json::parse(Dir.read(Files[2]));
  EXPECT_EQ(Response["payload"]["content"], "fine");
  EXPECT_EQ(Response["payload"]["attempts"], 2);
  EXPECT_EQ(Response["payload"]["usage"]["completion_tokens"], 7);
  json Error = json::parse(Dir.read(Files[1]));
  EXPECT_EQ(Error["payload"]["will_retry"], true);
}

TEST_F(LlmClientTest, CheckReachableSucceedsAgainstAServer) {
  Server.then(replyJson(200, {{"object", "list"},
                              {"data", {{{"id", "test-model"}, {"object", "model"}}}}}));
  LlmClient Client = client(config());
  Result<void> Reachable = Client.checkReachable();
  EXPECT_TRUE(Reachable) << Reachable.error();
  ASSERT_EQ(Server.requests().size(), 1u);
  EXPECT_EQ(Server.requests()[0].Method, "GET");
  EXPECT_EQ(Server.requests()[0].Path, "/v1/models");
}

TEST_F(LlmClientTest, CheckReachableExplainsARefusedKey) {
  Server.then(replyJson(401, {{"error", {{"message", "bad key"}}}}));
  LlmClient Client = client(config());
  Result<void> Reachable = Client.checkReachable();
  ASSERT_FALSE(Reachable);
  EXPECT_NE(Reachable.error().find("FS_LLM_API_KEY"), std::string::npos)
      << Reachable.error();
  EXPECT_EQ(Reachable.error().find(SecretKey), std::string::npos);
}

TEST(LlmClientReachability, UnreachableServerFailsClearly) {
  int Port;
  {
    ScriptedServer Gone;
    Port = std::stoi(Gone.root().substr(Gone.root().rfind(':') + 1));
  }
  LlmConfig Config;
  Config.BaseUrl = "http://127.0.0.1:" + std::to_string(Port);
  Config.Model = "m";
  Config.ConnectTimeout = milliseconds(1000);
  LlmClient Client(Config);
  Result<void> Reachable = Client.checkReachable();
  ASSERT_FALSE(Reachable);
  EXPECT_NE(Reachable.error().find("cannot reach"), std::string::npos)
      << Reachable.error();
  EXPECT_NE(Reachable.error().find("FS_LLM_BASE_URL"), std::string::npos);
}

TEST(LlmClientReachability, MissingKeyForOpenAiFailsWithoutNetwork) {
  LlmConfig Config;
  Config.Model = "gpt-4o";
  LlmClient Client(Config);
  Result<void> Reachable = Client.checkReachable();
  ASSERT_FALSE(Reachable);
  EXPECT_NE(Reachable.error().find("no API key"), std::string::npos);
}

TEST(LlmConfigTest, FromEnvironment) {
  std::map<std::string, std::string> Env = {{"FS_LLM_BASE_URL", "http://gpu01:8000"},
                                            {"FS_LLM_MODEL", "qwen-coder"},
                                            {"OPENAI_API_KEY", "sk-fallback"}};
  auto GetEnv = [&](const char *Name) -> const char * {
    auto It = Env.find(Name);
    return It == Env.end() ? nullptr : It->second.c_str();
  };
  Result<LlmConfig> Config = LlmConfig::fromEnvironment(GetEnv);
  ASSERT_TRUE(Config) << Config.error();
  EXPECT_EQ(Config->chatCompletionsUrl(), "http://gpu01:8000/v1/chat/completions");
  EXPECT_EQ(Config->Model, "qwen-coder");
  EXPECT_EQ(Config->ApiKey, "sk-fallback");

  Env["FS_LLM_API_KEY"] = "sk-preferred";
  EXPECT_EQ(LlmConfig::fromEnvironment(GetEnv)->ApiKey, "sk-preferred");

  Env.erase("FS_LLM_MODEL");
  Result<LlmConfig> NoModel = LlmConfig::fromEnvironment(GetEnv);
  ASSERT_FALSE(NoModel);
  EXPECT_NE(NoModel.error().find("FS_LLM_MODEL"), std::string::npos);
}

TEST(LlmConfigTest, DefaultBaseIsOpenAi) {
  LlmConfig Config;
  EXPECT_EQ(Config.chatCompletionsUrl(), "https://api.openai.com/v1/chat/completions");
  EXPECT_EQ(Config.modelsUrl(), "https://api.openai.com/v1/models");
}

} // namespace
