// The DDL parser's steps on their own: a data type, a column definition and
// one ALTER TABLE clause, each parsed from its own tokens.
#include "floe/cdc/mysql/ddl_parser_internal.h"

#include <gtest/gtest.h>

namespace floe::cdc::mysql::ddl_internal {
namespace {

Parser ParserOf(std::string_view sql) {
  auto tokens = Tokenize(sql);
  EXPECT_TRUE(tokens) << tokens.error().ToString();
  return Parser(sql, std::move(*tokens));
}

TEST(DdlParserStepsTest, DataTypeFamilies) {
  struct Case {
    std::string_view sql;
    MysqlType type;
  };
  for (const Case& c :
       {Case{"int(11)", MysqlType::kInt}, Case{"decimal(12,2)", MysqlType::kDecimal},
        Case{"float(30)", MysqlType::kDouble}, Case{"datetime(6)", MysqlType::kDateTime},
        Case{"national varchar(10)", MysqlType::kVarChar}, Case{"char(4) byte", MysqlType::kBinary},
        Case{"long varbinary", MysqlType::kMediumBlob}, Case{"enum('a','b')", MysqlType::kEnum},
        Case{"inet6", MysqlType::kInet6}}) {
    Parser p = ParserOf(c.sql);
    ColumnDef col;
    auto st = p.ParseDataType(col);
    ASSERT_TRUE(st) << c.sql << ": " << st.error().ToString();
    EXPECT_EQ(col.type, c.type) << c.sql;
    EXPECT_TRUE(p.AtEnd()) << c.sql;
  }
  Parser national = ParserOf("national varchar(10)");
  ColumnDef col;
  ASSERT_TRUE(national.ParseDataType(col));
  EXPECT_EQ(col.charset, "utf8mb3");
  EXPECT_EQ(col.length, 10);

  Parser unknown = ParserOf("frobnicate");
  auto st = unknown.ParseDataType(col);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(st.error().message().find("unknown column type frobnicate"), std::string::npos);

  Parser bad_decimal = ParserOf("decimal(70,2)");
  EXPECT_EQ(bad_decimal.ParseDataType(col).error().code(), ErrorCode::kInvalidArgument);
}

TEST(DdlParserStepsTest, ColumnDefinition) {
  Parser p = ParserOf("id bigint unsigned not null auto_increment primary key comment 'k'");
  bool inline_pk = false;
  auto col = p.ParseColumnDefinition(&inline_pk, "");
  ASSERT_TRUE(col) << col.error().ToString();
  EXPECT_EQ(col->name, "id");
  EXPECT_EQ(col->type, MysqlType::kBigInt);
  EXPECT_TRUE(col->is_unsigned);
  EXPECT_FALSE(col->nullable);
  EXPECT_TRUE(col->auto_increment);
  EXPECT_TRUE(inline_pk);
  EXPECT_EQ(col->comment, "k");
}

TEST(DdlParserStepsTest, OneAlterClauseEach) {
  DdlStatement st;
  Parser modify = ParserOf("change column a b int not null after c");
  ASSERT_TRUE(modify.ParseAlterSpec(st));
  ASSERT_EQ(st.actions.size(), 1u);
  EXPECT_EQ(st.actions[0].kind, AlterAction::Kind::kChangeColumn);
  EXPECT_EQ(st.actions[0].name, "a");
  EXPECT_EQ(st.actions[0].column.name, "b");
  EXPECT_EQ(st.actions[0].position.kind, ColumnPosition::Kind::kAfter);

  Parser rename = ParserOf("rename column b to c");
  ASSERT_TRUE(rename.ParseAlterSpec(st));
  EXPECT_EQ(st.actions[1].kind, AlterAction::Kind::kRenameColumn);
  EXPECT_EQ(st.actions[1].new_name, "c");

  Parser algorithm = ParserOf("algorithm = inplace");
  ASSERT_TRUE(algorithm.ParseAlterSpec(st));
  EXPECT_EQ(st.actions[2].kind, AlterAction::Kind::kIgnored);
  EXPECT_EQ(st.actions[2].ignored_what, "algorithm");

  Parser option = ParserOf("default charset = latin1 collate latin1_bin");
  ASSERT_TRUE(option.ParseAlterSpec(st));
  EXPECT_EQ(st.actions[3].kind, AlterAction::Kind::kTableOptions);
  EXPECT_EQ(st.actions[3].charset, "latin1");
  EXPECT_EQ(st.actions[3].collation, "latin1_bin");

  Parser bad = ParserOf("frobnicate x");
  auto status = bad.ParseAlterSpec(st);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message().find("unexpected ALTER TABLE clause"), std::string::npos);
}

TEST(DdlParserStepsTest, SkipsTokensAndWholeGroups) {
  Parser item = ParserOf("a (b, (c)) d, e");
  ASSERT_TRUE(item.SkipItem());
  EXPECT_TRUE(item.Peek().IsPunct(","));

  Parser rest = ParserOf("PARTITION BY HASH (id) (PARTITION p0, PARTITION p1)");
  ASSERT_TRUE(rest.SkipRest());
  EXPECT_TRUE(rest.AtEnd());

  Parser stray = ParserOf("a b) c");
  auto st = stray.SkipRest();
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("unbalanced parentheses"), std::string::npos)
      << st.error().message();
  EXPECT_TRUE(stray.Peek().IsPunct(")"));
}

}  // namespace
}  // namespace floe::cdc::mysql::ddl_internal
