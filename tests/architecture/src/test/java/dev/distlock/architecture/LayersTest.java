package dev.distlock.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The layers of {@code docs/architecture.md}, checked on the main classes of every library module:
 * API ← SPI ← engine ← backends and recipes; the starter and the adapters use the API and the
 * backends' public builders. Each rule names what a layer may see; a class that reaches up fails it.
 */
class LayersTest {

    private static final String API = "dev.distlock.core";
    private static final String API_FENCING = "dev.distlock.core.fencing";
    private static final String SPI = "dev.distlock.core.spi";
    private static final String ENGINE = "dev.distlock.core.engine";
    private static final String LEADER = "dev.distlock.core.leader";
    private static final String MULTI = "dev.distlock.core.multi";
    private static final String SEMAPHORE = "dev.distlock.core.semaphore";

    /** The recipes: coordination built on {@code LockRegistry} alone. */
    private static final String[] RECIPES = {LEADER + "..", MULTI + "..", SEMAPHORE + ".."};

    /**
     * The one frozen exception: the SPI's registry base starts the engine, through the engine's one
     * public class. A backend extends the base and never sees the engine; moving the start behind a
     * service look-up would remove this, at the price of a look-up at every registry's start.
     */
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.distlock");

    private static String[] concat(String[] first, String... rest) {
        return Stream.concat(Stream.of(first), Stream.of(rest)).toArray(String[]::new);
    }

    /** Anything that is not ours (the JDK, libraries), or ours and in one of {@code packages}. */
    private static DescribedPredicate<JavaClass> notOursOr(String... packages) {
        return resideOutsideOfPackage("dev.distlock..").or(resideInAnyPackage(packages));
    }

    @Test
    void everyLayerIsOnTheClassPath() {
        Stream.of(
                        API,
                        API_FENCING,
                        SPI,
                        ENGINE,
                        LEADER,
                        MULTI,
                        SEMAPHORE,
                        "dev.distlock.core.memory",
                        "dev.distlock.redis",
                        "dev.distlock.zookeeper",
                        "dev.distlock.etcd",
                        "dev.distlock.jdbc",
                        "dev.distlock.spring",
                        "dev.distlock.test",
                        "dev.distlock.kotlin",
                        "dev.distlock.contract")
                .forEach(pkg -> assertThat(CLASSES.containPackage(pkg))
                        .as("classes of %s imported", pkg)
                        .isTrue());
    }

    @Test
    void theApiNamesNothingOfOursOutsideItself() {
        classes()
                .that()
                .resideInAnyPackage(API, API_FENCING)
                .should()
                .onlyDependOnClassesThat(notOursOr(API, API_FENCING))
                .because("the API names no implementation, no SPI type and no recipe")
                .check(CLASSES);
    }

    @Test
    void theSpiSeesTheApiOnly() {
        classes()
                .that()
                .resideInAPackage(SPI)
                .should()
                .onlyDependOnClassesThat(notOursOr(API, API_FENCING, SPI))
                .because("the SPI is what a backend implements, described in the API's terms")
                .check(CLASSES);
    }

    @Test
    void theEngineSeesTheSpiAndTheApi() {
        classes()
                .that()
                .resideInAPackage(ENGINE)
                .should()
                .onlyDependOnClassesThat(notOursOr(API, API_FENCING, SPI, ENGINE))
                .check(CLASSES);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "dev.distlock.redis..",
                "dev.distlock.zookeeper..",
                "dev.distlock.etcd..",
                "dev.distlock.jdbc..",
                "dev.distlock.core.memory.."
            })
    void aBackendSeesTheApiAndTheSpiOnly(String backend) {
        classes()
                .that()
                .resideInAPackage(backend)
                .should()
                .onlyDependOnClassesThat(notOursOr(API, API_FENCING, SPI, backend))
                .because("a backend implements the SPI; the engine, other backends and recipes are not its to see")
                .check(CLASSES);
    }

    @Test
    void theTestBackendSeesTheApiTheSpiAndTheInMemoryStoreOnly() {
        classes()
                .that()
                .resideInAPackage("dev.distlock.test")
                .should()
                .onlyDependOnClassesThat(
                        notOursOr(API, API_FENCING, SPI, "dev.distlock.core.memory", "dev.distlock.test"))
                .because("the application test backend implements the SPI and keeps read/write locks in the in-memory"
                        + " store")
                .check(CLASSES);
    }

    @ParameterizedTest
    @ValueSource(strings = {LEADER + "..", MULTI + "..", SEMAPHORE + ".."})
    void recipesUseTheApiOnly(String recipe) {
        classes()
                .that()
                .resideInAPackage(recipe)
                .should()
                .onlyDependOnClassesThat(notOursOr(API, API_FENCING, recipe))
                .because("a recipe works on any LockRegistry")
                .check(CLASSES);
    }

    @Test
    void theContractKitTestsThroughTheApiOnly() {
        classes()
                .that()
                .resideInAPackage("dev.distlock.contract..")
                .should()
                .onlyDependOnClassesThat(notOursOr(concat(RECIPES, API, API_FENCING, "dev.distlock.contract..")))
                .because("the kit checks any backend, a third party's too, through what users call: the API and"
                        + " the recipes built on it")
                .check(CLASSES);
    }

    @Test
    void theStarterAndTheAdaptersNeverReachTheSpiOrTheEngine() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "dev.distlock.spring..",
                        "dev.distlock.fencing..",
                        "dev.distlock.integration..",
                        "dev.distlock.shedlock..",
                        "dev.distlock.test.spring..",
                        "dev.distlock.kotlin..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(SPI + "..", ENGINE + "..")
                .because("they use the API and the backends' public builders")
                .check(CLASSES);
    }

    @Test
    void nothingOutsideTheEngineNamesIt() {
        noClasses()
                .that()
                .resideOutsideOfPackage(ENGINE + "..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage(ENGINE + "..")
                .because("the engine is not public API: the SPI starts it through EngineFactory, found by"
                        + " ServiceLoader")
                .check(CLASSES);
    }
}
