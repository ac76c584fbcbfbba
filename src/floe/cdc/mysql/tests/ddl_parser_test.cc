#include "floe/cdc/mysql/ddl_parser.h"

#include <gtest/gtest.h>

#include "floe/cdc/mysql/ddl_lexer.h"

namespace floe::cdc::mysql {
namespace {

TEST(DdlLexer, QuotedIdentifiersStringsAndComments) {
  auto tokens =
      Tokenize("CREATE /* c */ TABLE `a``b`.`t` -- x\n(c VARCHAR(3) DEFAULT 'it''s\\n' # y\n)");
  ASSERT_TRUE(tokens.has_value()) << tokens.error().ToString();
  const auto& t = *tokens;
  ASSERT_GE(t.size(), 6u);
  EXPECT_TRUE(t[0].Is("create"));
  EXPECT_TRUE(t[1].Is("TABLE"));
  EXPECT_EQ(t[2].kind, TokenKind::kQuotedIdentifier);
  EXPECT_EQ(t[2].text, "a`b");
  EXPECT_TRUE(t[3].IsPunct("."));
  EXPECT_EQ(t[4].text, "t");
  EXPECT_EQ(t[5].line, 2u);
  EXPECT_EQ(t[5].column, 1u);
  bool found = false;
  for (const auto& tok : t) {
    if (tok.kind == TokenKind::kString) {
      EXPECT_EQ(tok.text, "it's\n");
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(DdlLexer, VersionCommentsAreCode) {
  auto tokens = Tokenize("/*!40101 SET x */ /*M!100100 y */ /* z */");
  ASSERT_TRUE(tokens.has_value());
  ASSERT_EQ(tokens->size(), 4u);  // SET x y <end>
  EXPECT_TRUE((*tokens)[0].Is("SET"));
  EXPECT_TRUE((*tokens)[2].Is("y"));
}

TEST(DdlLexer, IntroducersAndNumbers) {
  auto tokens = Tokenize("_utf8mb4'x' N'y' 0x1F X'2A' b'01' 1.5e3 -- tail");
  ASSERT_TRUE(tokens.has_value());
  const auto& t = *tokens;
  EXPECT_EQ(t[0].introducer, "_utf8mb4");
  EXPECT_EQ(t[0].text, "x");
  EXPECT_EQ(t[1].introducer, "N");
  EXPECT_EQ(t[2].kind, TokenKind::kHexNumber);
  EXPECT_EQ(t[3].kind, TokenKind::kHexNumber);
  EXPECT_EQ(t[4].kind, TokenKind::kBitNumber);
  EXPECT_EQ(t[5].kind, TokenKind::kNumber);
  EXPECT_EQ(t[5].text, "1.5e3");
}

TEST(DdlLexer, UnterminatedIsAnError) {
  for (const char* sql : {"'abc", "`abc", "/* abc", "x'ab"}) {
    auto tokens = Tokenize(sql);
    ASSERT_FALSE(tokens.has_value()) << sql;
    EXPECT_EQ(tokens.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(tokens.error().message().find("line 1:1"), std::string::npos)
        << tokens.error().message();
  }
}

TEST(DdlParser, CreateTableColumnsAndKey) {
  auto st = ParseDdl(
      "CREATE TABLE IF NOT EXISTS shop.orders (\n"
      "  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,\n"
      "  total DECIMAL(12,2) NOT NULL DEFAULT '0.00' COMMENT 'sum',\n"
      "  created DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),\n"
      "  state ENUM('new','paid') CHARACTER SET latin1,\n"
      "  PRIMARY KEY (id), KEY ix_state (state)\n"
      ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;");
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  EXPECT_EQ(st->kind, DdlKind::kCreateTable);
  EXPECT_TRUE(st->if_not_exists);
  EXPECT_EQ(st->table.db, "shop");
  EXPECT_EQ(st->table.table, "orders");
  ASSERT_EQ(st->definition.columns.size(), 4u);
  EXPECT_EQ(st->definition.columns[0].type, MysqlType::kBigInt);
  EXPECT_TRUE(st->definition.columns[0].is_unsigned);
  EXPECT_TRUE(st->definition.columns[0].auto_increment);
  EXPECT_EQ(st->definition.columns[1].precision, 12);
  EXPECT_EQ(st->definition.columns[1].scale, 2);
  EXPECT_EQ(st->definition.columns[1].default_value, "0.00");
  EXPECT_EQ(st->definition.columns[1].comment, "sum");
  EXPECT_EQ(st->definition.columns[2].fsp, 3);
  EXPECT_EQ(st->definition.columns[2].default_value, "CURRENT_TIMESTAMP(3)");
  EXPECT_EQ(st->definition.columns[2].on_update, "CURRENT_TIMESTAMP(3)");
  EXPECT_EQ(st->definition.columns[3].enum_values, (std::vector<std::string>{"new", "paid"}));
  EXPECT_EQ(st->definition.columns[3].charset, "latin1");
  EXPECT_EQ(st->definition.primary_key, std::vector<std::string>{"id"});
  EXPECT_EQ(st->definition.engine, "innodb");
  EXPECT_EQ(st->definition.charset, "utf8mb4");
}

TEST(DdlParser, OneColumnDefinitionFromItsNameAndType) {
  auto c = ParseColumnDefinition("a`b", "decimal(12,2) unsigned");
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_EQ(c->name, "a`b");
  EXPECT_EQ(c->type, MysqlType::kDecimal);
  EXPECT_EQ(c->precision, 12);
  EXPECT_EQ(c->scale, 2);
  EXPECT_TRUE(c->is_unsigned);
  EXPECT_TRUE(c->nullable);
  auto required = ParseColumnDefinition("id", "bigint NOT NULL");
  ASSERT_TRUE(required.has_value());
  EXPECT_FALSE(required->nullable);
  EXPECT_FALSE(ParseColumnDefinition("x", "frobnicate(3)").has_value());
  auto two = ParseColumnDefinition("x", "int, y int");
  ASSERT_FALSE(two.has_value());
  EXPECT_NE(two.error().message().find("is not one column type"), std::string::npos);
}

TEST(DdlParser, AlterActions) {
  auto st = ParseDdl(
      "ALTER TABLE t ADD COLUMN a INT AFTER id, DROP COLUMN IF EXISTS b, MODIFY c TEXT FIRST, "
      "CHANGE d e BIGINT, RENAME COLUMN f TO g, ALTER h SET DEFAULT 5, DROP PRIMARY KEY, "
      "ADD PRIMARY KEY (id, a), ADD INDEX (a), ALGORITHM=INPLACE, LOCK=NONE, RENAME TO u");
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  using K = AlterAction::Kind;
  std::vector<K> kinds;
  for (const auto& a : st->actions) kinds.push_back(a.kind);
  EXPECT_EQ(kinds,
            (std::vector<K>{K::kAddColumn, K::kDropColumn, K::kModifyColumn, K::kChangeColumn,
                            K::kRenameColumn, K::kSetDefault, K::kDropPrimaryKey, K::kAddPrimaryKey,
                            K::kIgnored, K::kIgnored, K::kIgnored, K::kRenameTable}));
  EXPECT_EQ(st->actions[0].position.kind, ColumnPosition::Kind::kAfter);
  EXPECT_EQ(st->actions[0].position.after, "id");
  EXPECT_TRUE(st->actions[1].if_exists);
  EXPECT_EQ(st->actions[2].position.kind, ColumnPosition::Kind::kFirst);
  EXPECT_EQ(st->actions[3].name, "d");
  EXPECT_EQ(st->actions[3].column.name, "e");
  EXPECT_EQ(st->actions[7].key_columns, (std::vector<std::string>{"id", "a"}));
  EXPECT_EQ(st->actions[11].new_table.table, "u");
}

TEST(DdlParser, ErrorsCarryPositionAndStatement) {
  auto st = ParseDdl("CREATE TABLE t (\n  a INT,\n  b INT NOT NUL\n)");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(st.error().message().find("line 3:"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find("CREATE TABLE t"), std::string::npos);

  auto select = ParseDdl("CREATE TABLE t2 AS SELECT * FROM t1");
  ASSERT_FALSE(select.has_value());
  EXPECT_EQ(select.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(select.error().message().find("information_schema"), std::string::npos);

  auto type = ParseDdl("CREATE TABLE t3 (a FOOTYPE)");
  ASSERT_FALSE(type.has_value());
  EXPECT_EQ(type.error().code(), ErrorCode::kNotSupported);
}

TEST(DdlParser, DeepNestingIsRejectedNotCrashed) {
  std::string sql = "CREATE TABLE t (a INT DEFAULT " + std::string(100000, '(') + "1" +
                    std::string(100000, ')') + ")";
  auto st = ParseDdl(sql);
  ASSERT_FALSE(st.has_value());
  EXPECT_NE(st.error().message().find("nested too deeply"), std::string::npos);
}

TEST(DdlParser, NotTableDdl) {
  for (const char* sql :
       {"BEGIN", "COMMIT", "CREATE DATABASE x", "GRANT ALL ON *.* TO u",
        "CREATE DEFINER=`root`@`%` TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.a=1",
        "DROP VIEW v", "ALTER DATABASE d CHARACTER SET utf8mb4", "/* only a comment */",
        "SET NAMES utf8mb4"}) {
    auto st = ParseDdl(sql);
    ASSERT_TRUE(st.has_value()) << sql << ": " << st.error().ToString();
    EXPECT_EQ(st->kind, DdlKind::kNotTableDdl) << sql;
  }
}

}  // namespace
}  // namespace floe::cdc::mysql
