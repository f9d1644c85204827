/*
 * From count_distinct 4.1.0: the install script replaces every object in
 * place and adds the new ones (the distinct_set type, its functions,
 * aggregates, operators and operator classes).
 */

-- @install script@
