// Switching parts of the committed models off (attn::Intervention): what each kind of switch does to the
// run's steps, that no intervention changes nothing, the rollout's rules, head_effects, and the errors
// that name a bad layer or head. The PyTorch golden cases for every kind are in test_model.cpp.
#include <fstream>
#include <iterator>

#include "attention/model.hpp"
#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

namespace {

LanguageModel load(const char* path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return LanguageModel::parse(bytes.data(), bytes.size());
}

const LanguageModel& decoder_model() {
  static const LanguageModel model = load(ATTN_MODEL_FILE);
  return model;
}

const LanguageModel& encoder_model() {
  static const LanguageModel model = load(ATTN_ENCODER_FILE);
  return model;
}

const char* const kSentence = "the train left the station on time";

Intervention heads(std::vector<HeadSwitch> off) {
  Intervention i;
  i.heads_off = std::move(off);
  return i;
}

void require_same(const Matrix& a, const Matrix& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  REQUIRE(a == b);
}

}  // namespace

TEST_CASE("intervention: none (and an empty one) gives exactly the run as trained", "[model][intervention]") {
  for (const LanguageModel* model : {&decoder_model(), &encoder_model()}) {
    const ModelRun plain = run_model(*model, kSentence);
    const ModelRun none = run_model(*model, kSentence, 5, Intervention{});
    require_same(plain.steps.output, none.steps.output);
    require_same(plain.rollout, none.rollout);
    REQUIRE(Intervention{}.empty());
  }
}

TEST_CASE("intervention: a zero head's output is zeros, its weights the learnt ones", "[model][intervention]") {
  const LanguageModel& model = decoder_model();
  const ModelRun plain = run_model(model, kSentence);
  const ModelRun off = run_model(model, kSentence, 5, heads({{1, 2, Ablation::Zero}}));
  // Layer 0 is untouched, bit for bit.
  require_same(plain.steps.layers[0].output, off.steps.layers[0].output);
  const MultiHeadSteps& a = off.steps.layers[1].attention;
  REQUIRE(a.heads[2].output.isZero(0));
  require_same(a.heads[2].weights, plain.steps.layers[1].attention.heads[2].weights);
  const Index d_k = model.d_model / model.heads;
  REQUIRE(a.concat.middleCols(2 * d_k, d_k).isZero(0));
  // The projection of the changed concatenation, W_O's bias included.
  Matrix projected = a.concat * model.layers[1].attention.W_O;
  projected.rowwise() += model.layers[1].attention.b_O.transpose();
  require_close(a.output, projected, 1e-5f);
  REQUIRE((off.steps.layers[1].output - plain.steps.layers[1].output).cwiseAbs().maxCoeff() > 1e-3f);
}

TEST_CASE("intervention: a mean head's output is the same on every row, the mean of its output",
          "[model][intervention]") {
  const LanguageModel& model = encoder_model();
  const ModelRun plain = run_model(model, kSentence);
  const ModelRun off = run_model(model, kSentence, 5, heads({{0, 1, Ablation::Mean}}));
  const Matrix& learnt = plain.steps.layers[0].attention.heads[1].output;
  const Matrix& mean = off.steps.layers[0].attention.heads[1].output;
  for (Index t = 0; t < mean.rows(); ++t) require_close(mean.row(t), learnt.colwise().mean(), 1e-6f);
}

TEST_CASE("intervention: a uniform head spreads its weights evenly over the keys it may see", "[model][intervention]") {
  SECTION("decoder: 1/(t+1) over 0..t") {
    const ModelRun off = run_model(decoder_model(), kSentence, 5, heads({{0, 3, Ablation::Uniform}}));
    const AttentionSteps& head = off.steps.layers[0].attention.heads[3];
    for (Index t = 0; t < head.weights.rows(); ++t)
      for (Index j = 0; j < head.weights.cols(); ++j)
        REQUIRE(head.weights(t, j) == (j <= t ? Approx(1.0 / double(t + 1)) : Approx(0).margin(0)));
    require_close(head.output, head.weights * head.V, 1e-6f);
  }
  SECTION("encoder: 1/T over all") {
    const ModelRun off = run_model(encoder_model(), kSentence, 5, heads({{2, 0, Ablation::Uniform}}));
    const AttentionSteps& head = off.steps.layers[2].attention.heads[0];
    REQUIRE(head.weights.isApprox(Matrix::Constant(7, 7, 1.0f / 7), 1e-6f));
  }
}

TEST_CASE("intervention: a layer's attention off adds nothing, its feed-forward still runs", "[model][intervention]") {
  const LanguageModel& model = decoder_model();
  Intervention off;
  off.layers_off = {1};
  const ModelRun run = run_model(model, kSentence, 5, off);
  const LayerSteps& layer = run.steps.layers[1];
  require_same(layer.after_attention, run.steps.layers[0].output);  // x + 0, not even b_O
  REQUIRE(layer.attention.output.isZero(0));
  REQUIRE((layer.output - layer.after_attention).cwiseAbs().maxCoeff() > 1e-3f);
}

TEST_CASE("intervention: positions off reads the sentence as a bag of words", "[model][intervention]") {
  const LanguageModel& model = encoder_model();
  Intervention off;
  off.positions_off = true;
  const ModelRun run = run_model(model, kSentence, 5, off);
  const ModelRun plain = run_model(model, kSentence);
  require_close(run.steps.input, plain.steps.input - model.positions.topRows(7), 1e-5f);
  // Without positions, the encoder cannot tell the two "the"s apart: same input, same output rows.
  require_close(run.steps.output.row(0), run.steps.output.row(3), 1e-5f);
  // The first "the" and the second differ in the model as trained.
  REQUIRE((plain.steps.output.row(0) - plain.steps.output.row(3)).cwiseAbs().maxCoeff() > 1e-2f);
}

TEST_CASE("intervention: the rollout leaves zero and mean heads out, a layer off is the identity",
          "[model][intervention]") {
  const LanguageModel& model = decoder_model();
  SECTION("all of layer 1's heads zero: the rollout is layer 0's") {
    const ModelRun run = run_model(
        model, kSentence, 5,
        heads({{1, 0, Ablation::Zero}, {1, 1, Ablation::Mean}, {1, 2, Ablation::Zero}, {1, 3, Ablation::Zero}}));
    std::vector<std::vector<Matrix>> first;
    first.emplace_back();
    for (const AttentionSteps& h : run.steps.layers[0].attention.heads) first.back().push_back(h.weights);
    require_close(run.rollout, attention_rollout(first), 1e-6f);
  }
  SECTION("a layer off: the identity in place of that layer") {
    Intervention off;
    off.layers_off = {0};
    const ModelRun run = run_model(model, kSentence, 5, off);
    std::vector<std::vector<Matrix>> second;
    second.emplace_back();
    for (const AttentionSteps& h : run.steps.layers[1].attention.heads) second.back().push_back(h.weights);
    require_close(run.rollout, attention_rollout(second), 1e-6f);
  }
  SECTION("one zero head: the other three averaged") {
    const ModelRun run = run_model(model, kSentence, 5, heads({{0, 1, Ablation::Zero}}));
    std::vector<std::vector<Matrix>> w(2);
    for (Index h = 0; h < 4; ++h)
      if (h != 1) w[0].push_back(run.steps.layers[0].attention.heads[h].weights);
    for (const AttentionSteps& h : run.steps.layers[1].attention.heads) w[1].push_back(h.weights);
    require_close(run.rollout, attention_rollout(w), 1e-6f);
  }
}

TEST_CASE("intervention: duplicates are harmless, the last mode of a head wins", "[model][intervention]") {
  const LanguageModel& model = decoder_model();
  const ModelRun once = run_model(model, kSentence, 5, heads({{1, 2, Ablation::Uniform}}));
  const ModelRun twice = run_model(model, kSentence, 5, heads({{1, 2, Ablation::Zero}, {1, 2, Ablation::Uniform}}));
  require_same(once.steps.output, twice.steps.output);
  Intervention layers;
  layers.layers_off = {0, 0};
  Intervention layer;
  layer.layers_off = {0};
  require_same(run_model(model, kSentence, 5, layers).steps.output, run_model(model, kSentence, 5, layer).steps.output);
}

TEST_CASE("intervention: a layer or head the model lacks is refused by name", "[model][intervention][errors]") {
  const LanguageModel& model = decoder_model();
  REQUIRE_THROWS_WITH(run_model(model, kSentence, 5, heads({{1, 4, Ablation::Zero}})),
                      Contains("head 4 of layer 1") && Contains("4 heads per layer"));
  REQUIRE_THROWS_WITH(run_model(model, kSentence, 5, heads({{2, 0, Ablation::Zero}})),
                      Contains("layer 2") && Contains("2 layers"));
  REQUIRE_THROWS_WITH(run_model(model, kSentence, 5, heads({{0, -1, Ablation::Zero}})), Contains("head -1"));
  Intervention layer;
  layer.layers_off = {-1};
  REQUIRE_THROWS_WITH(run_model(model, kSentence, 5, layer), Contains("layer -1"));
  REQUIRE_THROWS_WITH(fill_blank(encoder_model(), kSentence, 4, 5, heads({{3, 0, Ablation::Zero}})),
                      Contains("layer 3") && Contains("3 layers"));
  REQUIRE_THROWS_WITH(head_effects(encoder_model(), kSentence, 4, heads({{0, 9, Ablation::Mean}})),
                      Contains("head 9 of layer 0"));
}

TEST_CASE("fill the blank under an intervention: the guesses are the switched model's", "[model][intervention]") {
  const LanguageModel& model = encoder_model();
  Intervention off;
  off.positions_off = true;
  const FilledBlank plain = fill_blank(model, kSentence, 4);
  const FilledBlank bag = fill_blank(model, kSentence, 4, 5, off);
  REQUIRE(bag.run.predictions.size() == 5);
  REQUIRE(bag.run.predictions[0].probability != plain.run.predictions[0].probability);
  const ModelRun masked = run_model(model, std::vector<Index>{2, 1203, 336, 2, model.mask_id, 19, 66}, 5, off);
  require_same(masked.final_norm, bag.run.final_norm);
}

TEST_CASE("head effects: every head, layer-major; each entry is that head switched off", "[model][intervention]") {
  SECTION("encoder: the hidden word") {
    const LanguageModel& model = encoder_model();
    const HeadEffects effects = head_effects(model, kSentence, 4, {}, Ablation::Zero);
    REQUIRE(effects.word == "station");
    REQUIRE(effects.heads.size() == model.layers.size() * static_cast<std::size_t>(model.heads));
    const FilledBlank plain = fill_blank(model, kSentence, 4, 500);
    Index rank = 0;
    for (std::size_t i = 0; i < plain.run.predictions.size(); ++i)
      if (plain.run.predictions[i].word == "station") rank = static_cast<Index>(i) + 1;
    REQUIRE(rank == effects.rank);
    for (std::size_t i = 0; i < effects.heads.size(); ++i) {
      const HeadEffect& e = effects.heads[i];
      REQUIRE(e.layer == static_cast<Index>(i) / model.heads);
      REQUIRE(e.head == static_cast<Index>(i) % model.heads);
      REQUIRE(e.drop == Approx(effects.probability - e.probability).margin(1e-7));
    }
    const HeadEffect& l1h2 = effects.heads[static_cast<std::size_t>(1 * model.heads + 2)];
    const FilledBlank off = fill_blank(model, kSentence, 4, 500, heads({{1, 2, Ablation::Zero}}));
    bool found = false;
    for (std::size_t i = 0; i < off.run.predictions.size(); ++i)
      if (off.run.predictions[i].word == "station") {
        found = true;
        REQUIRE(l1h2.rank == static_cast<Index>(i) + 1);
        REQUIRE(l1h2.probability == Approx(off.run.predictions[i].probability).epsilon(1e-6));
      }
    REQUIRE((found || l1h2.rank > 500));
  }
  SECTION("decoder: the top next word; a head already in the base takes the asked mode") {
    const LanguageModel& model = decoder_model();
    const ModelRun plain = run_model(model, kSentence, 1);
    const HeadEffects effects = head_effects(model, kSentence, -7, heads({{0, 0, Ablation::Mean}}), Ablation::Uniform);
    REQUIRE(effects.target == plain.predictions[0].id);
    const ModelRun base = run_model(model, kSentence, 50, heads({{0, 0, Ablation::Mean}}));
    bool found = false;
    for (const Prediction& p : base.predictions)
      if (p.id == effects.target) {
        found = true;
        REQUIRE(effects.probability == Approx(p.probability).epsilon(1e-6));
      }
    REQUIRE(found);
    const ModelRun uniform = run_model(model, kSentence, 50, heads({{0, 0, Ablation::Uniform}}));
    for (const Prediction& p : uniform.predictions)
      if (p.id == effects.target) REQUIRE(effects.heads[0].probability == Approx(p.probability).epsilon(1e-6));
  }
  SECTION("the decoder has no blank to hide, the encoder needs one") {
    REQUIRE_THROWS_WITH(head_effects(encoder_model(), kSentence, 7), Contains("position 7"));
  }
}
