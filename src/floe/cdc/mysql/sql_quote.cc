#include "floe/cdc/mysql/sql_quote.h"

#include "floe/common/quote.h"

namespace floe::cdc::mysql {

std::string QuoteId(std::string_view name) { return SqlQuoted(name, '`'); }

std::string QuoteLiteral(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "''";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\0') {
      out += "\\0";
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

}  // namespace floe::cdc::mysql
