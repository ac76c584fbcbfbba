#pragma once
/// `Overloaded{...}`: one visitor for std::visit made of one lambda per
/// alternative, as the updates and requirements of this folder visit their
/// variants.

namespace floe::iceberg::internal {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
// Spelled out for clang < 17, which lacks aggregate deduction (the fuzz build).
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace floe::iceberg::internal
