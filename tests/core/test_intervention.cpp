// Switching parts of the committed models off (attn::Intervention): what each kind of switch does to the
// run's steps, that no intervention changes nothing, the rollout's rules, head_effects, and the errors
// that name a bad layer or head; and every kind against PyTorch in float64
// (tests/reference/intervention_cases.txt, made by model/make_intervention_golden.py); head_effects on the
// pieces fixtures, a hidden word of several pieces (tests/reference/pieces_effects_cases.txt, made by
// model/make_pieces_fixture.py).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

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

namespace {

// One case of tests/reference/intervention_cases.txt (its format: model/make_intervention_golden.py).
struct InterventionCase {
  std::string model, name, sentence, effects_mode;  // effects_mode: empty unless a head-effects case
  Index blank = -1;
  Intervention off;
  std::map<std::string, Matrix> m;
  const Matrix& get(const std::string& key) const {
    const auto it = m.find(key);
    if (it == m.end()) FAIL("intervention case " << name << " has no " << key);
    return it->second;
  }
};

Ablation ablation_named(const std::string& mode) {
  if (mode == "zero") return Ablation::Zero;
  if (mode == "mean") return Ablation::Mean;
  REQUIRE(mode == "uniform");
  return Ablation::Uniform;
}

std::vector<InterventionCase> read_intervention_cases(std::map<std::string, std::uint64_t>& sizes,
                                                      const char* path = ATTN_INTERVENTION_CASES) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<InterventionCase> cases;
  std::string line, model;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "model") {
      std::uint64_t bytes = 0;
      words >> model >> bytes;
      sizes[model] = bytes;
    } else if (kind == "case") {
      cases.emplace_back();
      cases.back().model = model;
      words >> cases.back().name;
    } else if (kind == "sentence") {
      cases.back().sentence = line.substr(9);
    } else if (kind == "blank") {
      words >> cases.back().blank;
    } else if (kind == "effects") {
      words >> cases.back().effects_mode;
    } else if (kind == "off") {
      std::string heads, mode, layers;
      int positions = 0;
      words >> heads >> mode >> layers >> positions;
      Intervention& off = cases.back().off;
      off.positions_off = positions != 0;
      std::replace(heads.begin(), heads.end(), ',', ' ');
      std::istringstream pairs(heads == "-" ? "" : heads);
      for (std::string pair; pairs >> pair;) {
        long long l = 0, h = 0;
        REQUIRE(std::sscanf(pair.c_str(), "%lld.%lld", &l, &h) == 2);
        off.heads_off.push_back({static_cast<Index>(l), static_cast<Index>(h), ablation_named(mode)});
      }
      std::replace(layers.begin(), layers.end(), ',', ' ');
      std::istringstream list(layers == "-" ? "" : layers);
      for (Index l; list >> l;) off.layers_off.push_back(l);
    } else {
      Index r = 0, c = 0;
      words >> r >> c;
      std::string numbers;
      std::getline(in, numbers);
      std::istringstream values(numbers);
      Matrix m(r, c);
      for (Index i = 0; i < r * c; ++i) {
        double v;
        values >> v;
        m(i / c, i % c) = static_cast<float>(v);
      }
      REQUIRE(values);
      cases.back().m[kind] = m;
    }
  }
  return cases;
}

// |actual − expected| ≤ tolerance · max(1, max |expected row|), as test_model.cpp's golden check.
void require_close_rows(const Matrix& actual, const Matrix& expected, float tolerance, const std::string& what) {
  INFO(what);
  REQUIRE(actual.rows() == expected.rows());
  REQUIRE(actual.cols() == expected.cols());
  for (Index r = 0; r < expected.rows(); ++r) {
    const float scale = std::max(1.0f, expected.row(r).cwiseAbs().maxCoeff());
    for (Index c = 0; c < expected.cols(); ++c) {
      INFO("at (" << r << ", " << c << ")");
      REQUIRE(std::fabs(actual(r, c) - expected(r, c)) <= tolerance * scale);
    }
  }
}

}  // namespace

TEST_CASE("every kind of switching off matches PyTorch (float64) on both models", "[model][intervention][reference]") {
  std::map<std::string, std::uint64_t> sizes;
  const std::vector<InterventionCase> cases = read_intervention_cases(sizes);
  REQUIRE(cases.size() == 18);  // 8 decoder and 6 encoder runs, 2 head-effects cases each
  {
    INFO(
        "tests/reference/intervention_cases.txt was made from other model files: run "
        "model/make_intervention_golden.py");
    std::ifstream decoder(ATTN_MODEL_FILE, std::ios::binary | std::ios::ate),
        encoder(ATTN_ENCODER_FILE, std::ios::binary | std::ios::ate);
    REQUIRE(static_cast<std::uint64_t>(decoder.tellg()) == sizes["decoder"]);
    REQUIRE(static_cast<std::uint64_t>(encoder.tellg()) == sizes["encoder"]);
  }
  for (const InterventionCase& c : cases) {
    const LanguageModel& model = c.model == "decoder" ? decoder_model() : encoder_model();
    INFO(c.model << " case " << c.name);
    if (!c.effects_mode.empty()) {
      const HeadEffects effects = head_effects(model, c.sentence, c.blank, {}, ablation_named(c.effects_mode));
      REQUIRE(effects.target == static_cast<Index>(c.get("target")(0, 0)));
      REQUIRE(effects.probability == Approx(c.get("base")(0, 0)).epsilon(1e-3));
      REQUIRE(effects.rank == static_cast<Index>(c.get("base")(0, 1)));
      const Matrix& heads = c.get("heads");
      REQUIRE(static_cast<Index>(effects.heads.size()) == heads.rows());
      for (Index i = 0; i < heads.rows(); ++i) {
        const HeadEffect& e = effects.heads[static_cast<std::size_t>(i)];
        INFO("head " << i);
        REQUIRE(e.layer == static_cast<Index>(heads(i, 0)));
        REQUIRE(e.head == static_cast<Index>(heads(i, 1)));
        REQUIRE(e.probability == Approx(heads(i, 2)).epsilon(1e-3));
        REQUIRE(e.rank == static_cast<Index>(heads(i, 3)));
        REQUIRE(e.drop == Approx(heads(i, 4)).margin(1e-6));
      }
      continue;
    }
    const ModelRun run = c.blank < 0 ? run_model(model, c.sentence, 5, c.off)
                                     : fill_blank(model, c.sentence, c.blank, 5, c.off).run;
    for (std::size_t l = 0; l < run.steps.layers.size(); ++l)
      require_close_rows(run.steps.layers[l].output, c.get("L" + std::to_string(l) + ".output"), 1e-4f, "layer output");
    for (const HeadSwitch& s : c.off.heads_off)
      require_close(
          run.steps.layers[static_cast<std::size_t>(s.layer)].attention.heads[static_cast<std::size_t>(s.head)].weights,
          c.get("L" + std::to_string(s.layer) + ".H" + std::to_string(s.head) + ".weights"), 1e-5f);
    require_close(run.rollout, c.get("rollout"), 1e-5f);
    const Matrix& ids = c.get("top5_ids");
    const Matrix& probabilities = c.get("top5_probabilities");
    REQUIRE(run.predictions.size() == 5);
    for (Index i = 0; i < 5; ++i) {
      REQUIRE(run.predictions[static_cast<std::size_t>(i)].id == static_cast<Index>(ids(0, i)));
      REQUIRE(run.predictions[static_cast<std::size_t>(i)].probability == Approx(probabilities(0, i)).epsilon(1e-3));
    }
  }
}

// ---- head_effects on pieces models: the hidden word's own pieces, ranked among canonical whole words ----

namespace {

const LanguageModel& pieces_model(bool encoder) {
  static const LanguageModel decoder = load(ATTN_PIECES_DECODER_FILE);
  static const LanguageModel encoder_ = load(ATTN_PIECES_ENCODER_FILE);
  return encoder ? encoder_ : decoder;
}

// Where a word's pieces stand in a blank's guesses: their rank (1 = first), or 0 when not among them.
Index rank_among(const std::vector<Prediction>& guesses, const std::vector<Index>& pieces) {
  for (std::size_t i = 0; i < guesses.size(); ++i)
    if (guesses[i].pieces == pieces) return static_cast<Index>(i) + 1;
  return 0;
}

}  // namespace

TEST_CASE("head effects on a pieces encoder: the hidden word's pieces, ranked as fill_blank ranks its guesses",
          "[model][intervention][pieces]") {
  const LanguageModel& model = pieces_model(true);
  // "neood" (▁ne + ood) in station's place: the masked input is the same, and the word is its 2nd guess.
  const std::string sentence = "the train left the neood on time";
  for (const Ablation mode : {Ablation::Zero, Ablation::Mean, Ablation::Uniform}) {
    INFO("mode " << static_cast<int>(mode));
    const HeadEffects effects = head_effects(model, sentence, 4, {}, mode);
    REQUIRE(effects.word == "neood");
    REQUIRE(effects.pieces == std::vector<Index>{463, 468});
    REQUIRE(model.pieces->piece(468) == "ood");
    REQUIRE(effects.target == 463);
    REQUIRE(effects.heads.size() == 4);
    // The base: fill_blank's own guesses, with the word's product of probabilities and its place.
    const FilledBlank plain = fill_blank(model, sentence, 4, 300);
    REQUIRE(effects.rank == rank_among(plain.run.predictions, effects.pieces));
    REQUIRE(effects.rank == 2);
    REQUIRE(effects.rank_exact);
    REQUIRE(effects.probability == Approx(plain.run.predictions[1].probability).epsilon(1e-6));
    for (const HeadEffect& e : effects.heads) {
      INFO("head " << e.layer << "." << e.head);
      const FilledBlank off = fill_blank(model, sentence, 4, 300, heads({{e.layer, e.head, mode}}));
      const Index at = rank_among(off.run.predictions, effects.pieces);
      REQUIRE(at >= 1);
      REQUIRE(e.rank == at);
      REQUIRE(e.rank_exact);
      REQUIRE(e.probability == Approx(off.run.predictions[static_cast<std::size_t>(at - 1)].probability).epsilon(1e-6));
      REQUIRE(e.drop == Approx(effects.probability - e.probability).margin(1e-9));
    }
  }
  // A base intervention applies to every run, and a head already in it takes the asked mode.
  const Intervention base = heads({{0, 0, Ablation::Mean}});
  const HeadEffects based = head_effects(model, sentence, 4, base, Ablation::Uniform);
  const FilledBlank with_base = fill_blank(model, sentence, 4, 300, base);
  REQUIRE(based.rank == rank_among(with_base.run.predictions, based.pieces));
  const FilledBlank uniform = fill_blank(model, sentence, 4, 300, heads({{0, 0, Ablation::Uniform}}));
  REQUIRE(based.heads[0].rank == rank_among(uniform.run.predictions, based.pieces));
}

TEST_CASE("head effects on a pieces encoder: past the cap the rank is cap + 1, not exact; byte pieces ranked too",
          "[model][intervention][pieces]") {
  const LanguageModel& model = pieces_model(true);
  // The random fixture ranks "station" (▁st + ation) far below its 200th guess.
  const HeadEffects station = head_effects(model, "the train left the station on time", 4);
  REQUIRE(station.word == "station");
  REQUIRE(station.rank == kWordRankCap + 1);
  REQUIRE(!station.rank_exact);
  const FilledBlank plain = fill_blank(model, "the train left the station on time", 4, kWordRankCap + 1);
  REQUIRE(plain.run.predictions.size() == static_cast<std::size_t>(kWordRankCap + 1));
  REQUIRE(rank_among(plain.run.predictions, station.pieces) == 0);
  // Its probability is the product of its pieces' probabilities, below the 201st guess's.
  REQUIRE(station.probability < plain.run.predictions.back().probability);
  double product = 1;
  for (std::size_t i = 0; i < 2; ++i) {
    const Eigen::VectorXd logits =
        (model.embedding * plain.run.final_norm.row(plain.masked[i]).transpose()).cast<double>();
    const double top = logits.maxCoeff();
    product *= std::exp(logits(station.pieces[i]) - top) / (logits.array() - top).exp().sum();
  }
  REQUIRE(station.probability == Approx(product).epsilon(1e-5));
  // crème is spelt with byte pieces, which no guess uses: it is still followed, and ranked where it stands.
  const HeadEffects creme = head_effects(model, "the café served crème brûlée", 3);
  REQUIRE(creme.word == "crème");
  REQUIRE(creme.pieces.size() == 6);
  REQUIRE(model.pieces->is_byte(static_cast<std::uint32_t>(creme.pieces[2])));
  REQUIRE(creme.rank == kWordRankCap + 1);
  REQUIRE(creme.probability > 0);

  // Refusals as fill_blank's, and a bad base named before any run.
  REQUIRE_THROWS_WITH(head_effects(model, "the train left", 3), Contains("position 3 is not a word of the sentence"));
  REQUIRE_THROWS_WITH(head_effects(model, "the train left", 0, heads({{0, 2, Ablation::Zero}})),
                      Contains("head 2 of layer 0"));
  REQUIRE_THROWS_WITH(head_effects(model, "", 0), Contains("empty"));
}

TEST_CASE("head effects on the pieces fixtures match PyTorch (float64) with SentencePiece's canonical ranks",
          "[model][intervention][pieces][reference]") {
  std::map<std::string, std::uint64_t> sizes;
  const std::vector<InterventionCase> cases = read_intervention_cases(sizes, ATTN_PIECES_EFFECTS_CASES);
  REQUIRE(cases.size() == 6);
  {
    INFO("tests/reference/pieces_effects_cases.txt was made from other fixtures: run model/make_pieces_fixture.py");
    std::ifstream decoder(ATTN_PIECES_DECODER_FILE, std::ios::binary | std::ios::ate),
        encoder(ATTN_PIECES_ENCODER_FILE, std::ios::binary | std::ios::ate);
    REQUIRE(static_cast<std::uint64_t>(decoder.tellg()) == sizes["decoder"]);
    REQUIRE(static_cast<std::uint64_t>(encoder.tellg()) == sizes["encoder"]);
  }
  for (const InterventionCase& c : cases) {
    INFO(c.model << " case " << c.name);
    const LanguageModel& model = pieces_model(c.model == "encoder");
    const HeadEffects effects = head_effects(model, c.sentence, c.blank, {}, ablation_named(c.effects_mode));
    REQUIRE(effects.target == static_cast<Index>(c.get("target")(0, 0)));
    const Matrix& pieces = c.get("target_pieces");
    REQUIRE(static_cast<Index>(effects.pieces.size()) == pieces.cols());
    for (Index i = 0; i < pieces.cols(); ++i)
      REQUIRE(effects.pieces[static_cast<std::size_t>(i)] == static_cast<Index>(pieces(0, i)));
    const Matrix& base = c.get("base");
    REQUIRE(effects.probability == Approx(base(0, 0)).epsilon(1e-3));
    REQUIRE(effects.rank == static_cast<Index>(base(0, 1)));
    REQUIRE(effects.rank_exact == (base(0, 2) != 0));
    const Matrix& rows = c.get("heads");
    REQUIRE(static_cast<Index>(effects.heads.size()) == rows.rows());
    for (Index i = 0; i < rows.rows(); ++i) {
      const HeadEffect& e = effects.heads[static_cast<std::size_t>(i)];
      INFO("head " << i);
      REQUIRE(e.layer == static_cast<Index>(rows(i, 0)));
      REQUIRE(e.head == static_cast<Index>(rows(i, 1)));
      REQUIRE(e.probability == Approx(rows(i, 2)).epsilon(1e-3));
      REQUIRE(e.rank == static_cast<Index>(rows(i, 3)));
      REQUIRE(e.drop == Approx(rows(i, 4)).margin(1e-6));
      REQUIRE(e.rank_exact == (rows(i, 5) != 0));
    }
  }
}
