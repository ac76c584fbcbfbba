// Runs the DDL corpus in tests/data/mysql_ddl/*.test: statements applied in
// order to one SchemaTracker, each followed by its expected outcome. The file
// format is described in tests/data/mysql_ddl/README.md. With
// FLOE_DDL_CORPUS_UPDATE=1 the files are rewritten with the actual outcomes
// (review the diff before committing).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "floe/cdc/mysql/ddl_parser.h"
#include "floe/cdc/mysql/schema_tracker.h"

#ifndef FLOE_TEST_DATA_DIR
#error "FLOE_TEST_DATA_DIR must be defined"
#endif

namespace floe::cdc::mysql {
namespace {

namespace fs = std::filesystem;

std::string Describe(const TableSchema& t) {
  std::string out = t.QualifiedName() + " (";
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += t.columns[i].name + "#" + std::to_string(t.columns[i].field_id) + " " +
           t.columns[i].TypeString();
  }
  out += ")";
  if (!t.primary_key.empty()) {
    out += " PK(";
    for (size_t i = 0; i < t.primary_key.size(); ++i) out += (i ? "," : "") + t.primary_key[i];
    out += ")";
  }
  if (!t.charset.empty()) out += " charset=" + t.charset;
  return out;
}

std::string ErrorLine(const Error& e) {
  std::string out = "error: " + std::string(ErrorCodeName(e.code()));
  std::smatch m;
  std::string msg = e.message();
  if (std::regex_search(msg, m, std::regex("at line (\\d+:\\d+)"))) out += " at " + m[1].str();
  return out;
}

struct Case {
  std::vector<std::string> directives;  // lines before "statement"
  std::string sql;
  std::vector<std::string> expected;
  int line = 0;
};

struct CorpusFile {
  std::vector<Case> cases;
  std::vector<std::string> trailer;
};

CorpusFile ReadCorpus(const fs::path& path) {
  std::ifstream in(path);
  CorpusFile file;
  Case current;
  enum { kOutside, kSql, kExpected } state = kOutside;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (state == kSql) {
      if (line == "----") {
        state = kExpected;
      } else {
        current.sql += (current.sql.empty() ? "" : "\n") + line;
      }
      continue;
    }
    if (state == kExpected) {
      if (!line.empty()) {
        current.expected.push_back(line);
        continue;
      }
      file.cases.push_back(std::move(current));
      current = Case();
      state = kOutside;
      current.directives.push_back(line);
      continue;
    }
    if (line == "statement") {
      state = kSql;
      current.line = line_no;
      continue;
    }
    current.directives.push_back(line);
  }
  if (state != kOutside) {
    file.cases.push_back(std::move(current));
  } else {
    file.trailer = std::move(current.directives);
  }
  return file;
}

class Runner {
 public:
  Runner() { Reset(); }

  void Directive(const std::string& line) {
    if (line.rfind("use ", 0) == 0) {
      db_ = line.substr(4);
    } else if (line.rfind("select ", 0) == 0) {
      selection_ = std::regex(line.substr(7));
      Reset();
    } else if (line == "reset") {
      Reset();
    }
  }

  std::vector<std::string> Run(const std::string& sql) {
    std::vector<std::string> out;
    auto parsed = ParseDdl(sql);
    if (!parsed) {
      out.push_back(ErrorLine(parsed.error()));
      // The tracker must agree (and must not change).
      auto applied = tracker_.Apply(sql, db_);
      if (applied) {
        out.push_back(applied->empty() ? "tracker: ignored (names only an unselected table)"
                                       : "BUG: changes from an unparsable statement");
      }
      return out;
    }
    out.push_back("kind: " + std::string(DdlKindName(parsed->kind)));
    auto changes = tracker_.Apply(sql, db_);
    if (!changes) {
      out.push_back(ErrorLine(changes.error()));
      return out;
    }
    std::vector<std::pair<std::string, std::string>> touched;
    for (const auto& c : *changes) {
      out.push_back("change: " + c.ToString());
      std::pair<std::string, std::string> key{c.after.db, c.after.table};
      if (std::find(touched.begin(), touched.end(), key) == touched.end()) touched.push_back(key);
    }
    for (const auto& [db, table] : touched) {
      const TableSchema* t = tracker_.Find(db, table);
      out.push_back(t ? "table: " + Describe(*t) : "table: " + db + "." + table + " (gone)");
    }
    return out;
  }

 private:
  void Reset() {
    SchemaTrackerOptions options;
    auto selection = selection_;
    options.selected = [selection](std::string_view db, std::string_view table) {
      return std::regex_search(std::string(db) + "." + std::string(table), selection);
    };
    tracker_ = SchemaTracker(options);
  }

  std::string db_ = "app";
  std::regex selection_{".*"};
  SchemaTracker tracker_;
};

TEST(DdlCorpus, AllFiles) {
  fs::path dir = fs::path(FLOE_TEST_DATA_DIR) / "mysql_ddl";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << dir;
  const bool update = std::getenv("FLOE_DDL_CORPUS_UPDATE") != nullptr;
  size_t total = 0;
  for (const auto& path : files) {
    CorpusFile file = ReadCorpus(path);
    Runner runner;
    std::ostringstream rewritten;
    for (auto& c : file.cases) {
      for (const auto& d : c.directives) {
        runner.Directive(d);
        rewritten << d << "\n";
      }
      auto actual = runner.Run(c.sql);
      ++total;
      if (!update) {
        EXPECT_EQ(actual, c.expected) << path.filename().string() << ":" << c.line << "\n" << c.sql;
      }
      rewritten << "statement\n" << c.sql << "\n----\n";
      for (const auto& l : actual) rewritten << l << "\n";
    }
    for (const auto& d : file.trailer) rewritten << d << "\n";
    if (update) {
      std::string text = rewritten.str();
      while (text.size() >= 2 && text.substr(text.size() - 2) == "\n\n") text.pop_back();
      std::ofstream(path) << text;
    }
  }
  EXPECT_GE(total, 200u) << "the corpus should hold at least 200 statements";
}

}  // namespace
}  // namespace floe::cdc::mysql
