// DatumReader: decoding with a resolution plan built once per (writer, reader)
// schema pair. Reading without a reader schema uses the plan of the writer
// schema against itself, so there is one decode path.

#include <limits>
#include <map>

#include "floe/format/avro/binary.h"

namespace floe::format::avro {

struct DatumReader::Plan {
  enum class Op : uint8_t {
    kNull,
    kBoolean,
    kInt,
    kLong,
    kFloat,
    kDouble,
    kBytes,  // also kString: reads length-prefixed bytes
    kFixed,
    kEnum,
    kRecord,
    kArray,
    kMap,
    kWriterUnion,    // the writer wrote a union: read the branch, then its plan
    kToReaderUnion,  // the reader wants a union: read `child`, tag the branch
    kError,          // cannot be resolved: reading such a value fails
  };
  struct Step {
    int32_t reader_index = -1;   // -1: skip the writer field
    const Plan* plan = nullptr;  // when read
    const Node* skip = nullptr;  // when skipped
  };

  Op op = Op::kError;
  Type target = Type::kNull;  // the datum type produced by primitive ops
  const Node* writer = nullptr;
  const Node* reader = nullptr;
  std::vector<Step> steps;
  std::vector<std::pair<int32_t, Datum>> defaults;
  size_t reader_field_count = 0;
  std::vector<int32_t> enum_map;  // writer symbol index -> reader index, -1 none
  const Plan* child = nullptr;
  int32_t reader_branch = -1;
  std::vector<const Plan*> branches;
  std::string error;
};

struct DatumReader::State {
  Schema writer;
  Schema reader;
  std::vector<std::unique_ptr<Plan>> plans;
  const Plan* root = nullptr;
};

namespace {

using Plan = DatumReader::Plan;
using Op = Plan::Op;

bool IsNamed(Type t) { return t == Type::kRecord || t == Type::kEnum || t == Type::kFixed; }

bool Promotes(Type writer, Type reader) {
  if (writer == reader) return true;
  switch (writer) {
    case Type::kInt:
      return reader == Type::kLong || reader == Type::kFloat || reader == Type::kDouble;
    case Type::kLong:
      return reader == Type::kFloat || reader == Type::kDouble;
    case Type::kFloat:
      return reader == Type::kDouble;
    case Type::kString:
      return reader == Type::kBytes;
    case Type::kBytes:
      return reader == Type::kString;
    default:
      return false;
  }
}

bool SameName(const Node& a, const Node& b) {
  if (a.name() == b.name()) return true;
  for (const auto& alias : b.aliases()) {
    auto dot = alias.rfind('.');
    std::string_view short_alias = dot == std::string::npos
                                       ? std::string_view(alias)
                                       : std::string_view(alias).substr(dot + 1);
    if (short_alias == a.name()) return true;
  }
  return false;
}

class PlanBuilder {
 public:
  PlanBuilder(DatumReader::State* state, ResolveOptions options)
      : state_(state), options_(options) {}

  Result<const Plan*> Resolve(const Node* w, const Node* r) {
    auto key = std::make_pair(w, r);
    if (auto it = memo_.find(key); it != memo_.end()) {
      if (it->second->op == Op::kError && !it->second->error.empty()) {
        return SchemaIncompatible("{}", it->second->error);
      }
      return it->second;  // complete, or in progress (recursive types)
    }
    state_->plans.push_back(std::make_unique<Plan>());
    Plan* plan = state_->plans.back().get();
    plan->writer = w;
    plan->reader = r;
    memo_.emplace(key, plan);
    Status status = Fill(plan, w, r);
    if (!status) {
      plan->op = Op::kError;
      plan->error = status.error().message();
      return std::unexpected(std::move(status).error());
    }
    return plan;
  }

 private:
  static std::unexpected<Error> Incompatible(const Node* w, const Node* r) {
    auto describe = [](const Node* n) {
      return IsNamed(n->type()) ? fmt::format("{} {}", TypeName(n->type()), n->fullname())
                                : std::string(TypeName(n->type()));
    };
    return SchemaIncompatible("cannot read writer type {} as reader type {}", describe(w),
                              describe(r));
  }

  Status Fill(Plan* plan, const Node* w, const Node* r) {
    if (w->type() == Type::kUnion) {
      plan->op = Op::kWriterUnion;
      for (const Node* branch : w->branches()) {
        auto sub = Resolve(branch, r);
        // A branch that cannot be resolved fails only when a value uses it.
        plan->branches.push_back(sub ? *sub : ErrorPlan(sub.error().message()));
      }
      return Ok();
    }
    if (r->type() == Type::kUnion) return FillReaderUnion(plan, w, r);
    if (!Promotes(w->type(), r->type())) return Incompatible(w, r);
    plan->target = r->type();
    switch (w->type()) {
      case Type::kNull:
        plan->op = Op::kNull;
        return Ok();
      case Type::kBoolean:
        plan->op = Op::kBoolean;
        return Ok();
      case Type::kInt:
        plan->op = Op::kInt;
        return Ok();
      case Type::kLong:
        plan->op = Op::kLong;
        return Ok();
      case Type::kFloat:
        plan->op = Op::kFloat;
        return Ok();
      case Type::kDouble:
        plan->op = Op::kDouble;
        return Ok();
      case Type::kBytes:
      case Type::kString:
        plan->op = Op::kBytes;
        return Ok();
      case Type::kFixed:
        if (w->fixed_size() != r->fixed_size()) {
          return SchemaIncompatible("fixed {} has size {}, reader's {} has size {}", w->fullname(),
                                    w->fixed_size(), r->fullname(), r->fixed_size());
        }
        plan->op = Op::kFixed;
        return Ok();
      case Type::kEnum:
        return FillEnum(plan, w, r);
      case Type::kArray:
      case Type::kMap: {
        plan->op = w->type() == Type::kArray ? Op::kArray : Op::kMap;
        FLOE_ASSIGN_OR_RETURN(plan->child, Resolve(w->items(), r->items()));
        return Ok();
      }
      case Type::kRecord:
        return FillRecord(plan, w, r);
      case Type::kUnion:
        break;
    }
    return Incompatible(w, r);
  }

  const Plan* ErrorPlan(std::string message) {
    state_->plans.push_back(std::make_unique<Plan>());
    Plan* plan = state_->plans.back().get();
    plan->op = Op::kError;
    plan->error = std::move(message);
    return plan;
  }

  Status FillReaderUnion(Plan* plan, const Node* w, const Node* r) {
    const auto& branches = r->branches();
    // Preference: same type (and name, for named types), then same type, then a promotion.
    for (int pass = 0; pass < 3; ++pass) {
      for (size_t i = 0; i < branches.size(); ++i) {
        const Node* b = branches[i];
        bool candidate = false;
        if (pass == 0)
          candidate = b->type() == w->type() && (!IsNamed(w->type()) || SameName(*w, *b));
        if (pass == 1) candidate = b->type() == w->type() && IsNamed(w->type());
        if (pass == 2) candidate = b->type() != w->type() && Promotes(w->type(), b->type());
        if (!candidate) continue;
        auto sub = Resolve(w, b);
        if (!sub) continue;
        plan->op = Op::kToReaderUnion;
        plan->child = *sub;
        plan->reader_branch = static_cast<int32_t>(i);
        return Ok();
      }
    }
    return SchemaIncompatible(
        "writer type {} matches no branch of the reader's union",
        IsNamed(w->type()) ? w->fullname() : std::string(TypeName(w->type())));
  }

  Status FillEnum(Plan* plan, const Node* w, const Node* r) {
    plan->op = Op::kEnum;
    std::optional<size_t> fallback;
    if (r->enum_default()) fallback = r->SymbolIndex(*r->enum_default());
    for (const auto& symbol : w->symbols()) {
      auto index = r->SymbolIndex(symbol);
      if (!index) index = fallback;
      plan->enum_map.push_back(index ? static_cast<int32_t>(*index) : -1);
    }
    return Ok();
  }

  Status FillRecord(Plan* plan, const Node* w, const Node* r) {
    plan->op = Op::kRecord;
    const auto& wf = w->fields();
    const auto& rf = r->fields();
    plan->reader_field_count = rf.size();
    std::vector<int32_t> writer_to_reader(wf.size(), -1);
    for (size_t j = 0; j < rf.size(); ++j) {
      std::optional<size_t> match;
      if (rf[j].field_id) {
        for (size_t i = 0; i < wf.size() && !match; ++i) {
          if (wf[i].field_id == rf[j].field_id && writer_to_reader[i] < 0) match = i;
        }
      }
      for (size_t i = 0; i < wf.size() && !match; ++i) {
        if (writer_to_reader[i] >= 0) continue;
        // Both have ids and they differ: a different column that reuses the name.
        if (wf[i].field_id && rf[j].field_id) continue;
        bool named = wf[i].name == rf[j].name;
        for (const auto& alias : rf[j].aliases) named = named || wf[i].name == alias;
        if (named) match = i;
      }
      if (match) {
        writer_to_reader[*match] = static_cast<int32_t>(j);
        continue;
      }
      if (rf[j].default_value) {
        auto d = DefaultToDatum(*rf[j].type, *rf[j].default_value);
        if (!d) {
          return std::unexpected(std::move(d).error().WithContext(
              fmt::format("record {} field '{}'", r->fullname(), rf[j].name)));
        }
        plan->defaults.emplace_back(static_cast<int32_t>(j), std::move(*d));
        continue;
      }
      if (options_.missing_optional_as_null && rf[j].type->type() == Type::kUnion &&
          rf[j].type->NullBranch()) {
        Datum null;
        null.set_branch(static_cast<int32_t>(*rf[j].type->NullBranch()));
        plan->defaults.emplace_back(static_cast<int32_t>(j), std::move(null));
        continue;
      }
      return SchemaIncompatible(
          "reader field '{}'{} of record {} is not in the writer's schema and has no default",
          rf[j].name, rf[j].field_id ? fmt::format(" (field-id {})", *rf[j].field_id) : "",
          r->fullname());
    }
    for (size_t i = 0; i < wf.size(); ++i) {
      Plan::Step step;
      step.reader_index = writer_to_reader[i];
      if (step.reader_index >= 0) {
        auto sub = Resolve(wf[i].type, rf[static_cast<size_t>(step.reader_index)].type);
        if (!sub) {
          return std::unexpected(std::move(sub).error().WithContext(
              fmt::format("record {} field '{}'", r->fullname(), wf[i].name)));
        }
        step.plan = *sub;
      } else {
        step.skip = wf[i].type;
      }
      plan->steps.push_back(step);
    }
    return Ok();
  }

  DatumReader::State* state_;
  ResolveOptions options_;
  std::map<std::pair<const Node*, const Node*>, Plan*> memo_;
};

// Per-Read bookkeeping: how many zero-byte items may still be produced (so a
// hostile count of nulls cannot run forever or exhaust memory), and nesting.
struct Budget {
  uint64_t zero_size_items;
};

// Checks a block count read from the input against what it can describe.
Status CheckCount(BinaryDecoder* d, uint64_t count_offset, int64_t count, size_t item_min_size,
                  Budget* budget) {
  uint64_t n = static_cast<uint64_t>(count);
  if (item_min_size == 0) {
    if (n > budget->zero_size_items) {
      return Corruption("{} at offset {}: block count {} is implausible", d->source(), count_offset,
                        count);
    }
    budget->zero_size_items -= n;
    return Ok();
  }
  if (n > d->remaining() / item_min_size) {
    return Corruption("{} at offset {}: block count {} with only {} bytes left", d->source(),
                      count_offset, count, d->remaining());
  }
  return Ok();
}

// Reads an array/map block header: the count (negative: followed by a byte size).
Result<int64_t> ReadBlockCount(BinaryDecoder* d, size_t item_min_size, Budget* budget) {
  uint64_t at = d->offset();
  FLOE_ASSIGN_OR_RETURN(int64_t count, d->ReadLong());
  if (count < 0) {
    if (count == std::numeric_limits<int64_t>::min()) {
      return Corruption("{} at offset {}: bad block count", d->source(), at);
    }
    count = -count;
    uint64_t size_at = d->offset();
    FLOE_ASSIGN_OR_RETURN(int64_t size, d->ReadLong());
    if (size < 0 || static_cast<uint64_t>(size) > d->remaining()) {
      return Corruption("{} at offset {}: block byte size {} with {} bytes left", d->source(),
                        size_at, size, d->remaining());
    }
  }
  FLOE_RETURN_IF_ERROR(CheckCount(d, at, count, item_min_size, budget));
  return count;
}

Status Skip(const Node& node, BinaryDecoder* d, Budget* budget, int depth) {
  if (depth > DatumReader::kMaxNesting) return d->Corrupt("value nested too deeply");
  switch (node.type()) {
    case Type::kNull:
      return Ok();
    case Type::kBoolean:
      FLOE_RETURN_IF_ERROR(d->ReadBoolean());
      return Ok();
    case Type::kInt:
    case Type::kLong:
    case Type::kEnum:
      FLOE_RETURN_IF_ERROR(d->ReadLong());
      return Ok();
    case Type::kFloat:
      FLOE_RETURN_IF_ERROR(d->ReadRaw(4));
      return Ok();
    case Type::kDouble:
      FLOE_RETURN_IF_ERROR(d->ReadRaw(8));
      return Ok();
    case Type::kBytes:
    case Type::kString:
      FLOE_RETURN_IF_ERROR(d->ReadLengthPrefixed());
      return Ok();
    case Type::kFixed:
      FLOE_RETURN_IF_ERROR(d->ReadRaw(node.fixed_size()));
      return Ok();
    case Type::kRecord:
      for (const Field& f : node.fields())
        FLOE_RETURN_IF_ERROR(Skip(*f.type, d, budget, depth + 1));
      return Ok();
    case Type::kUnion: {
      uint64_t at = d->offset();
      FLOE_ASSIGN_OR_RETURN(int64_t index, d->ReadLong());
      if (index < 0 || static_cast<uint64_t>(index) >= node.branches().size()) {
        return Corruption("{} at offset {}: union branch {} out of range (union has {})",
                          d->source(), at, index, node.branches().size());
      }
      return Skip(*node.branches()[static_cast<size_t>(index)], d, budget, depth + 1);
    }
    case Type::kArray:
    case Type::kMap: {
      bool is_map = node.type() == Type::kMap;
      size_t min_size = node.items()->min_encoded_size() + (is_map ? 1 : 0);
      while (true) {
        uint64_t at = d->offset();
        FLOE_ASSIGN_OR_RETURN(int64_t count, d->ReadLong());
        if (count == 0) return Ok();
        if (count < 0) {
          if (count == std::numeric_limits<int64_t>::min()) return d->Corrupt("bad block count");
          FLOE_ASSIGN_OR_RETURN(int64_t size, d->ReadLong());
          if (size < 0 || static_cast<uint64_t>(size) > d->remaining()) {
            return d->Corrupt(
                fmt::format("block byte size {} with {} bytes left", size, d->remaining()));
          }
          FLOE_RETURN_IF_ERROR(d->ReadRaw(static_cast<size_t>(size)));
          continue;
        }
        FLOE_RETURN_IF_ERROR(CheckCount(d, at, count, min_size, budget));
        for (int64_t i = 0; i < count; ++i) {
          if (is_map) FLOE_RETURN_IF_ERROR(d->ReadLengthPrefixed());
          FLOE_RETURN_IF_ERROR(Skip(*node.items(), d, budget, depth + 1));
        }
      }
    }
  }
  return Ok();
}

Status Decode(const Plan& plan, BinaryDecoder* d, Datum* out, Budget* budget, int depth) {
  out->set_branch(-1);
  switch (plan.op) {
    case Op::kNull:
      out->SetNull();
      return Ok();
    case Op::kBoolean: {
      FLOE_ASSIGN_OR_RETURN(bool v, d->ReadBoolean());
      out->SetBoolean(v);
      return Ok();
    }
    case Op::kInt:
    case Op::kLong: {
      int64_t v;
      if (plan.op == Op::kInt) {
        FLOE_ASSIGN_OR_RETURN(v, d->ReadInt());
      } else {
        FLOE_ASSIGN_OR_RETURN(v, d->ReadLong());
      }
      switch (plan.target) {
        case Type::kInt:
          out->SetInt(static_cast<int32_t>(v));
          break;
        case Type::kLong:
          out->SetLong(v);
          break;
        case Type::kFloat:
          out->SetFloat(static_cast<float>(v));
          break;
        default:
          out->SetDouble(static_cast<double>(v));
          break;
      }
      return Ok();
    }
    case Op::kFloat: {
      FLOE_ASSIGN_OR_RETURN(float v, d->ReadFloat());
      if (plan.target == Type::kFloat) {
        out->SetFloat(v);
      } else {
        out->SetDouble(v);
      }
      return Ok();
    }
    case Op::kDouble: {
      FLOE_ASSIGN_OR_RETURN(double v, d->ReadDouble());
      out->SetDouble(v);
      return Ok();
    }
    case Op::kBytes: {
      FLOE_ASSIGN_OR_RETURN(std::string_view v, d->ReadLengthPrefixed());
      out->ResetBytes(plan.target)->assign(v);
      return Ok();
    }
    case Op::kFixed: {
      FLOE_ASSIGN_OR_RETURN(std::string_view v, d->ReadRaw(plan.writer->fixed_size()));
      out->ResetBytes(Type::kFixed)->assign(v);
      return Ok();
    }
    case Op::kEnum: {
      uint64_t at = d->offset();
      FLOE_ASSIGN_OR_RETURN(int64_t index, d->ReadLong());
      if (index < 0 || static_cast<uint64_t>(index) >= plan.enum_map.size()) {
        return Corruption("{} at offset {}: enum index {} out of range ({} symbols)", d->source(),
                          at, index, plan.enum_map.size());
      }
      int32_t mapped = plan.enum_map[static_cast<size_t>(index)];
      if (mapped < 0) {
        return SchemaIncompatible(
            "{} at offset {}: enum symbol '{}' of {} is not in the reader's {}", d->source(), at,
            plan.writer->symbols()[static_cast<size_t>(index)], plan.writer->fullname(),
            plan.reader->fullname());
      }
      out->SetEnum(mapped);
      return Ok();
    }
    case Op::kRecord: {
      if (depth > DatumReader::kMaxNesting) return d->Corrupt("value nested too deeply");
      std::vector<Datum>* fields = out->ResetChildren(Type::kRecord, plan.reader_field_count);
      for (const Plan::Step& step : plan.steps) {
        if (step.reader_index >= 0) {
          FLOE_RETURN_IF_ERROR(Decode(*step.plan, d,
                                      &(*fields)[static_cast<size_t>(step.reader_index)], budget,
                                      depth + 1));
        } else {
          FLOE_RETURN_IF_ERROR(Skip(*step.skip, d, budget, depth + 1));
        }
      }
      for (const auto& [index, value] : plan.defaults)
        (*fields)[static_cast<size_t>(index)] = value;
      return Ok();
    }
    case Op::kArray:
    case Op::kMap: {
      if (depth > DatumReader::kMaxNesting) return d->Corrupt("value nested too deeply");
      bool is_map = plan.op == Op::kMap;
      Type type = is_map ? Type::kMap : Type::kArray;
      size_t min_size = plan.writer->items()->min_encoded_size() + (is_map ? 1 : 0);
      std::vector<Datum>* items = out->ResetChildren(type, 0);
      std::vector<std::string>* keys = out->mutable_keys();
      while (true) {
        FLOE_ASSIGN_OR_RETURN(int64_t count, ReadBlockCount(d, min_size, budget));
        if (count == 0) return Ok();
        size_t start = items->size();
        items->resize(start + static_cast<size_t>(count));
        if (is_map) keys->resize(items->size());
        for (size_t i = start; i < items->size(); ++i) {
          if (is_map) {
            FLOE_ASSIGN_OR_RETURN(std::string_view key, d->ReadLengthPrefixed());
            (*keys)[i].assign(key);
          }
          FLOE_RETURN_IF_ERROR(Decode(*plan.child, d, &(*items)[i], budget, depth + 1));
        }
      }
    }
    case Op::kWriterUnion: {
      if (depth > DatumReader::kMaxNesting) return d->Corrupt("value nested too deeply");
      uint64_t at = d->offset();
      FLOE_ASSIGN_OR_RETURN(int64_t index, d->ReadLong());
      if (index < 0 || static_cast<uint64_t>(index) >= plan.branches.size()) {
        return Corruption("{} at offset {}: union branch {} out of range (union has {})",
                          d->source(), at, index, plan.branches.size());
      }
      const Plan& branch = *plan.branches[static_cast<size_t>(index)];
      if (branch.op == Op::kError) {
        return SchemaIncompatible("{} at offset {}: union branch {}: {}", d->source(), at, index,
                                  branch.error);
      }
      return Decode(branch, d, out, budget, depth + 1);
    }
    case Op::kToReaderUnion: {
      FLOE_RETURN_IF_ERROR(Decode(*plan.child, d, out, budget, depth + 1));
      out->set_branch(plan.reader_branch);
      return Ok();
    }
    case Op::kError:
      return SchemaIncompatible(
          "{} at offset {}: {}", d->source(), d->offset(),
          plan.error.empty() ? "recursive type cannot be resolved" : plan.error);
  }
  return Ok();
}

}  // namespace

Result<DatumReader> DatumReader::Make(const Schema& writer) { return Make(writer, writer, {}); }

Result<DatumReader> DatumReader::Make(const Schema& writer, const Schema& reader,
                                      ResolveOptions options) {
  auto state = std::make_shared<State>();
  state->writer = writer;
  state->reader = reader;
  PlanBuilder builder(state.get(), options);
  FLOE_ASSIGN_OR_RETURN(state->root, builder.Resolve(&writer.root(), &reader.root()));
  DatumReader out;
  out.state_ = std::move(state);
  return out;
}

Status DatumReader::Read(BinaryDecoder* decoder, Datum* out) const {
  // Zero-byte items (nulls, empty records) are allowed as if each took a byte,
  // plus a small allowance, so counts stay proportional to the input.
  Budget budget{decoder->remaining() + 4096};
  return Decode(*state_->root, decoder, out, &budget, 0);
}

const Schema& DatumReader::schema() const { return state_->reader; }
const Schema& DatumReader::writer_schema() const { return state_->writer; }

}  // namespace floe::format::avro
