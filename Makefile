# count_distinct: PGXS build
EXTENSION    = count_distinct
EXTVERSION   = $(shell grep default_version $(EXTENSION).control | sed -e "s/default_version[[:space:]]*=[[:space:]]*'\([^']*\)'/\1/")

MODULE_big   = count_distinct
OBJS         = $(patsubst %.c,%.o,$(wildcard src/*.c))
DATA         = $(wildcard sql/*--*.sql)

TESTS        = $(wildcard test/sql/*.sql)
REGRESS      = $(patsubst test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test --load-extension=$(EXTENSION)

# src/pg13: headers PostgreSQL 13 lacks (searched after the server's)
PG_CPPFLAGS  = -Werror -Wall -Wmissing-prototypes -idirafter src/pg13
EXTRA_CLEAN  = dist results regression.diffs regression.out

PG_CONFIG   ?= pg_config
PGXS        := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies: rebuild everything when one changes
$(OBJS): $(wildcard src/*.h)

# PGXN distribution zip, built from the committed tree
dist:
	mkdir -p dist
	git archive --format zip --prefix=$(EXTENSION)-$(EXTVERSION)/ -o dist/$(EXTENSION)-$(EXTVERSION).zip HEAD

.PHONY: dist
