#include "floe/format/parquet/schema_mapping.h"

namespace floe::format::parquet {
namespace {

using types::TypeId;

class Mapper {
 public:
  explicit Mapper(ParquetSchema* out) : out_(out) {}

  // Adds the elements of `field` (named `name`) and returns its shredding node.
  ShredNode Map(const types::NestedField& field, const std::string& name,
                const std::vector<std::string>& parent_path, int16_t def, int16_t rep,
                bool in_collection, const std::string& dotted) {
    ShredNode node;
    node.type = field.type.get();
    node.field_id = field.id;
    node.name = dotted;
    node.optional = !field.required;
    node.definition_level = static_cast<int16_t>(def + (field.required ? 0 : 1));
    node.first_leaf = static_cast<uint32_t>(out_->leaves.size());
    std::vector<std::string> path = parent_path;
    path.push_back(name);

    SchemaElement element;
    element.name = name;
    element.repetition_type =
        field.required ? FieldRepetitionType::kRequired : FieldRepetitionType::kOptional;
    element.field_id = field.id;
    const types::Type& type = *field.type;

    if (type.is_primitive()) {
      SetPrimitive(type, &element);
      LeafColumn leaf;
      leaf.field_id = field.id;
      leaf.path = path;
      leaf.type = &type;
      leaf.physical_type = *element.type;
      leaf.type_length = element.type_length.value_or(0);
      leaf.max_definition_level = node.definition_level;
      leaf.max_repetition_level = rep;
      leaf.in_collection = in_collection;
      out_->elements.push_back(std::move(element));
      out_->leaves.push_back(std::move(leaf));
    } else if (type.id() == TypeId::kStruct) {
      element.num_children = static_cast<int32_t>(type.fields().size());
      out_->elements.push_back(std::move(element));
      for (const types::NestedField& child : type.fields()) {
        node.children.push_back(Map(child, child.name, path, node.definition_level, rep,
                                    in_collection, dotted + "." + child.name));
      }
    } else {
      bool is_list = type.id() == TypeId::kList;
      element.num_children = 1;
      element.converted_type = is_list ? ConvertedType::kList : ConvertedType::kMap;
      element.logical_type = is_list ? LogicalType::List() : LogicalType::Map();
      out_->elements.push_back(std::move(element));
      SchemaElement repeated;
      repeated.name = is_list ? "list" : "key_value";
      repeated.repetition_type = FieldRepetitionType::kRepeated;
      repeated.num_children = is_list ? 1 : 2;
      out_->elements.push_back(std::move(repeated));
      path.push_back(is_list ? "list" : "key_value");
      node.repetition_level = static_cast<int16_t>(rep + 1);
      int16_t entry_def = static_cast<int16_t>(node.definition_level + 1);
      for (const types::NestedField& child : type.fields()) {
        node.children.push_back(Map(child, child.name, path, entry_def, node.repetition_level, true,
                                    dotted + "." + child.name));
      }
    }
    node.end_leaf = static_cast<uint32_t>(out_->leaves.size());
    return node;
  }

 private:
  static void SetPrimitive(const types::Type& type, SchemaElement* e) {
    switch (type.id()) {
      case TypeId::kBoolean:
        e->type = Type::kBoolean;
        break;
      case TypeId::kInt:
        e->type = Type::kInt32;
        break;
      case TypeId::kLong:
        e->type = Type::kInt64;
        break;
      case TypeId::kFloat:
        e->type = Type::kFloat;
        break;
      case TypeId::kDouble:
        e->type = Type::kDouble;
        break;
      case TypeId::kDecimal:
        if (type.precision() <= 9) {
          e->type = Type::kInt32;
        } else if (type.precision() <= 18) {
          e->type = Type::kInt64;
        } else {
          e->type = Type::kFixedLenByteArray;
          e->type_length = DecimalFixedLength(type.precision());
        }
        e->converted_type = ConvertedType::kDecimal;
        e->precision = type.precision();
        e->scale = type.scale();
        e->logical_type = LogicalType::Decimal(type.precision(), type.scale());
        break;
      case TypeId::kDate:
        e->type = Type::kInt32;
        e->converted_type = ConvertedType::kDate;
        e->logical_type = LogicalType::Date();
        break;
      case TypeId::kTime:
        e->type = Type::kInt64;
        e->converted_type = ConvertedType::kTimeMicros;
        e->logical_type = LogicalType::Time(false, TimeUnit::kMicros);
        break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
        e->type = Type::kInt64;
        e->converted_type = ConvertedType::kTimestampMicros;
        e->logical_type =
            LogicalType::Timestamp(type.id() == TypeId::kTimestampTz, TimeUnit::kMicros);
        break;
      case TypeId::kString:
        e->type = Type::kByteArray;
        e->converted_type = ConvertedType::kUtf8;
        e->logical_type = LogicalType::String();
        break;
      case TypeId::kUuid:
        e->type = Type::kFixedLenByteArray;
        e->type_length = 16;
        e->logical_type = LogicalType::Uuid();
        break;
      case TypeId::kFixed:
        e->type = Type::kFixedLenByteArray;
        e->type_length = type.length();
        break;
      case TypeId::kBinary:
        e->type = Type::kByteArray;
        break;
      default:
        break;
    }
  }

  ParquetSchema* out_;
};

}  // namespace

int DecimalFixedLength(int precision) {
  // The smallest n with 10^precision - 1 < 2^(8n - 1). 10^38 < 2^127, so n <= 16.
  using u128 = unsigned __int128;
  u128 max = 1;
  for (int i = 0; i < precision && i < 38; ++i) max *= 10;
  for (int n = 1; n < 16; ++n) {
    if (max - 1 < (static_cast<u128>(1) << (8 * n - 1))) return n;
  }
  return 16;
}

Result<ParquetSchema> MapSchema(const types::Schema& schema) {
  ParquetSchema out;
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(schema.fields().size());
  out.elements.push_back(std::move(root));
  Mapper mapper(&out);
  for (const types::NestedField& field : schema.fields()) {
    if (field.type == nullptr) return InvalidArgument("field {} has no type", field.id);
    out.roots.push_back(mapper.Map(field, field.name, {}, 0, 0, false, field.name));
  }
  return out;
}

}  // namespace floe::format::parquet
